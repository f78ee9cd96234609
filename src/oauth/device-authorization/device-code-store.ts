/** The device_code grant's storage (grants/device-code.ts): these statements, the polling pace among them. */
import type { Executor } from '../../db/executor.ts';
import type { DeviceCodeStore } from '../grants/device-code.ts';
import { DEVICE_POLL_INTERVAL_SECONDS, DEVICE_POLL_TOLERANCE_SECONDS, DEVICE_SLOW_DOWN_SECONDS } from '../lifetimes.ts';
import { findPolledDeviceCode, notePendingPoll, redeemDeviceCode } from './device-codes.repository.ts';

const PACING = { intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS, slowDownSeconds: DEVICE_SLOW_DOWN_SECONDS, toleranceSeconds: DEVICE_POLL_TOLERANCE_SECONDS };

export function deviceCodeStore(db: Executor): DeviceCodeStore {
  return {
    find: (digest, clientRowId) => findPolledDeviceCode(db, digest, clientRowId),
    redeem: (redemption) => redeemDeviceCode(db, redemption),
    isTooSoon: (digest, now) => notePendingPoll(db, digest, now, PACING),
  };
}
