/**
 * Purge of expired OAuth rows (SPEC §8): codes, grants with their refresh tokens, retired signing keys,
 * logout notices sent or abandoned a week ago,
 * pushed authorization requests and their continuations, used client assertions and DPoP proofs, device authorizations,
 * the failed-request limiter's ended windows.
 */
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { purgeExpiredAssertions } from './clients/client-assertions.repository.ts';
import { purgeExpiredDeviceCodes } from './device-authorization/device-codes.repository.ts';
import { purgeFinishedNotices } from './backchannel/logout-notices.repository.ts';
import { purgeExpiredDpopProofs } from './dpop/dpop-proofs.repository.ts';
import { purgeEndedFailureWindows } from './failure-windows.repository.ts';
import { purgeExpiredCodes } from './grants/codes.repository.ts';
import { purgeExpiredGrants } from './grants/grants.repository.ts';
import { purgeRetiredSigningKeys } from './keys/signing-keys.ts';
import { purgeExpiredPushedRequests } from './pushed-authorization/pushed-requests.repository.ts';

export async function purgeExpiredOAuthRows(db: DB, clock: Clock): Promise<number> {
  const now = clock();
  // Codes first: they reference grants.
  const codes = await purgeExpiredCodes(db, now) + await purgeExpiredDeviceCodes(db, now);
  const grants = await purgeExpiredGrants(db, now);
  const keys = await purgeRetiredSigningKeys(db, now);
  const notices = await purgeFinishedNotices(db, now);
  const pushed = await purgeExpiredPushedRequests(db, now);
  const assertions = await purgeExpiredAssertions(db, now);
  const proofs = await purgeExpiredDpopProofs(db, now);
  const windows = await purgeEndedFailureWindows(db, now);
  return codes + grants + keys + notices + pushed + assertions + proofs + windows;
}
