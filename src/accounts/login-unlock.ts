/**
 * Unlocking a login by email (docs/security.md, "Unlocking a login by
 * email"). The account-wide failure counter (login-throttle.ts) can be kept
 * full by anybody guessing from many addresses; a browser with the account's
 * device cookie passes it. A member whose browser has no such cookie proves
 * control of the account's address instead (OWASP Authentication Cheat Sheet,
 * "Account Lockout"; Keycloak's brute-force detection lets a member out the
 * same way through a link by email): the link sets the device cookie in the
 * browser that follows it. It unlocks, it does not log in: the password is
 * still needed, now counted on the device's own counter.
 *
 * Asking is answered the same way whether the address has an account or not
 * (mailed-link.ts); the mail's composer (login-unlock.mail.ts) sends nothing
 * when there is none. At most {@link UNLOCK_MAILS_PER_HOUR} mails per address
 * and {@link UNLOCK_REQUESTS_PER_IP_PER_HOUR} requests per client address (an
 * IPv6 /64) an hour, the numbers of the password reset: one client cannot
 * have mails sent to many members (OWASP Forgot Password Cheat Sheet).
 */
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import type { AttemptCounters, DelayPolicy } from './login-attempt-counters.ts';
import { digestLinkToken, isLinkToken, queueLinkMail, type LinkMailKind, type LinkMailRequest } from './mailed-link.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

export const UNLOCK_MAIL_KIND = 'login-unlock';
export const UNLOCK_MAILS_PER_HOUR = 3;
export const UNLOCK_REQUESTS_PER_IP_PER_HOUR = 10;
/** Three mails at once, then one an hour: never more than three in any hour. */
export const UNLOCK_MAIL_POLICY: DelayPolicy = { free: UNLOCK_MAILS_PER_HOUR, baseSeconds: 3600, maxSeconds: 3600 };
export const UNLOCK_IP_POLICY: DelayPolicy = { free: UNLOCK_REQUESTS_PER_IP_PER_HOUR, baseSeconds: 3600, maxSeconds: 3600 };
/** How long a link works (OWASP Forgot Password Cheat Sheet: short-lived, single use). */
export const UNLOCK_LINK_MINUTES = 30;

/** The client's limit first: a flood from one address does not use up the members' own. */
const UNLOCK_MAIL: LinkMailKind = {
  kind: UNLOCK_MAIL_KIND,
  limits: (account, client) => [{ key: `unlock-ip:${client}`, policy: UNLOCK_IP_POLICY }, { key: `unlock-mail:${account}`, policy: UNLOCK_MAIL_POLICY }],
  limitedEvent: 'account.login.unlock_limited',
};

/** Queues an unlock mail for this address unless it or the client asked too often. Tells the caller nothing either way. */
export function requestUnlockMail(db: Executor, clock: Clock, attempts: AttemptCounters, request: LinkMailRequest): Promise<void> {
  return queueLinkMail(db, clock, attempts, UNLOCK_MAIL, request);
}

export interface NewUnlockToken {
  readonly token: string;
  readonly account: string;
  readonly userId: number;
  readonly returnTo: string;
}

export async function storeUnlockToken(db: Executor, token: NewUnlockToken, now: Date): Promise<void> {
  await db.insertInto('login_unlock_tokens').values({
    digest: digestLinkToken(token.token), account: token.account, user_id: token.userId, return_to: token.returnTo,
    expires_at: new Date(now.getTime() + UNLOCK_LINK_MINUTES * 60 * 1000),
  }).execute();
}

export interface RedeemedUnlock {
  readonly account: string;
  readonly userId: number;
  readonly returnTo: string;
}

/** Whether a token is live, changing nothing: the link's page says at once when it is not (a mail scanner spends nothing). */
export async function isLiveUnlockToken(db: Executor, token: string, now: Date): Promise<boolean> {
  if (!isLinkToken(token)) return false;
  const row = await db.selectFrom('login_unlock_tokens').select('user_id')
    .where('digest', '=', digestLinkToken(token)).where('expires_at', '>', now).executeTakeFirst();
  return row !== undefined;
}

/** Consumes a live token in one statement: a second use, or one after expiry, finds nothing. */
export async function redeemUnlockToken(db: Executor, token: string, now: Date): Promise<RedeemedUnlock | undefined> {
  if (!isLinkToken(token)) return undefined;
  const row = await db.deleteFrom('login_unlock_tokens')
    .where('digest', '=', digestLinkToken(token)).where('expires_at', '>', now)
    .returning(['account', 'user_id', 'return_to'])
    .executeTakeFirst();
  return row && { account: row.account, userId: row.user_id, returnTo: row.return_to };
}

export async function purgeExpiredUnlockTokens(db: Executor, clock: Clock): Promise<void> {
  await deleteInBatches(db, 'login_unlock_tokens', sql<boolean>`expires_at <= ${clock()}`);
}
