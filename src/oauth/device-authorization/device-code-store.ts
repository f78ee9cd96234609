/** The device_code grant's storage (grants/device-code.ts): these statements and the instance's polling pace. */
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import type { DeviceCodeStore } from '../grants/device-code.ts';
import { findPolledDeviceCode, redeemDeviceCode } from './device-codes.repository.ts';
import { PollPace } from './poll-pace.ts';

export function deviceCodeStore(db: Executor, clock: Clock): DeviceCodeStore {
  const pace = new PollPace(clock);
  return {
    find: (digest, clientRowId) => findPolledDeviceCode(db, digest, clientRowId),
    redeem: (redemption) => redeemDeviceCode(db, redemption),
    isTooSoon: (digest, expiresAt) => pace.isTooSoon(digest.toString('hex'), expiresAt),
    forget: (digest) => pace.forget(digest.toString('hex')),
  };
}
