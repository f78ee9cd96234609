/**
 * REQUIRE_SECOND_FACTOR (NIST SP 800-63B §4.2: AAL2 for privileged access;
 * OWASP Multifactor Authentication Cheat Sheet): the roles that must sign in
 * with a second factor — a passkey that verified its user, or a password and
 * a one-time code. A member of such a role without one is signed in, but
 * reaches only /settings/security (to set one up), logout and static files
 * until they have one; a member who has one but whose session was signed in
 * without it (before it was set up, or with a passkey that did not verify
 * its user) is asked for it first (the step-up of /login/second-factor).
 *
 * Their sessions also end sooner (§4.2.3, AAL2 reauthentication): 12 hours
 * after the sign-in, and after 30 minutes without use, whatever "stay logged
 * in" said; the member signs in again, with both factors.
 */
import type { Executor } from '../db/executor.ts';
import { ACR_MULTI_FACTOR, meetsAcr } from './authentication-methods.ts';
import { findSecondFactors, hasSecondFactor } from './one-time-codes/one-time-codes.repository.ts';
import { deleteSession, type SessionContext } from './sessions.ts';

/** Where the member sets up a second factor. */
export const ENROLMENT_PAGE = '/settings/security';

/** The second step of a login, and the step-up of a session signed in without its member's second factor. */
export const SECOND_FACTOR_PATH = '/login/second-factor';

/** How long a session of such a role lasts after its sign-in (NIST SP 800-63B §4.2.3: at least once per 12 hours). */
export const REQUIRED_ROLE_SESSION_SECONDS = 12 * 3600;

/**
 * How long it may go unused (§4.2.3: after 30 minutes of inactivity), measured from the recorded "last used".
 * That is written at most every five minutes (sessions.ts `LAST_SEEN_RESOLUTION_SECONDS`), so the last use may be that much
 * later than recorded: a session ends after 25 to 30 minutes without use, never later.
 */
export const REQUIRED_ROLE_IDLE_SECONDS = 30 * 60;

/** What the role requirement asks of a session first: sign in again, set a factor up, prove it, or nothing. */
export type SecondFactorDemand = 'sign-in-again' | 'enrol' | 'step-up' | undefined;

/** Whether a session of a role that needs a second factor is past its time (it has then been ended). */
async function endedByTime(db: Executor, session: SessionContext, sessionId: string, now: Date): Promise<boolean> {
  const tooOld = now.getTime() - session.authTime.getTime() > REQUIRED_ROLE_SESSION_SECONDS * 1000;
  const idle = now.getTime() - session.lastSeenAt.getTime() > REQUIRED_ROLE_IDLE_SECONDS * 1000;
  if (!tooOld && !idle) return false;
  // Ended as an expiry ends a session: the apps it signed into keep their grants; codes in flight die with it.
  await deleteSession(db, sessionId);
  return true;
}

/**
 * What this session (its cookie value `sessionId`) must do before anything else. A session that met two
 * factors and is within its time is not read further; one past its time is ended.
 */
export async function secondFactorDemand(
  db: Executor, requiredRoles: readonly number[], session: SessionContext, sessionId: string, now: Date,
): Promise<SecondFactorDemand> {
  if (!requiredRoles.includes(session.user.role)) return undefined;
  if (await endedByTime(db, session, sessionId, now)) return 'sign-in-again';
  if (meetsAcr(session.amr, ACR_MULTI_FACTOR)) return undefined;
  return hasSecondFactor(await findSecondFactors(db, session.user.id)) ? 'step-up' : 'enrol';
}

/**
 * Whether the member, of a role that needs a second factor, would be left without one if `removing` went:
 * such a removal is refused (as GitHub refuses to turn off two-factor authentication for a member of an
 * organisation that requires it) — the member adds another factor first. Otherwise their next sign-in would
 * ask for the password alone and let whoever knew it set up a factor of their own. Read with the member's
 * row held (`for no key update`, as every change of a member), so that two removals at once cannot each
 * see the other factor left.
 */
export async function wouldLeaveRequiredRoleWithoutFactor(
  trx: Executor, requiredRoles: readonly number[], userId: number, removing: 'one-time-codes' | 'a-passkey',
): Promise<boolean> {
  const member = await trx.selectFrom('users').select('role').where('id', '=', userId).forNoKeyUpdate().executeTakeFirst();
  if (!member || !requiredRoles.includes(member.role)) return false;
  const left = await findSecondFactors(trx, userId);
  return removing === 'one-time-codes' ? left.passkeys === 0 : !left.totp && left.passkeys <= 1;
}

/** Paths that never read a session: the gate leaves them alone. */
const SESSIONLESS = ['/static/', '/health', '/metrics', '/.well-known/'];

/**
 * Paths a member who must sign in again, or prove their second factor, still reaches (the login pages,
 * the step-up among them, logout and the language switch); the session's time limits are checked there
 * too, so that no page that reads the session refreshes its "last used" past them.
 */
const REACHABLE_WITHOUT_SESSION = ['/logout', '/language/', '/login'];

/** Paths a member who must set up a second factor (and has none) still reaches: the enrolment page too. */
const REACHABLE_BEFORE_ENROLMENT = [ENROLMENT_PAGE, ...REACHABLE_WITHOUT_SESSION];

function isUnder(url: string, prefixes: readonly string[]): boolean {
  const path = url.split('?')[0]!;
  return prefixes.some((prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
}

export function isReachableBeforeEnrolment(url: string): boolean {
  return isUnder(url, REACHABLE_BEFORE_ENROLMENT);
}

export function isReachableWithoutSession(url: string): boolean {
  return isUnder(url, REACHABLE_WITHOUT_SESSION);
}

export function isSessionless(url: string): boolean {
  return isUnder(url, SESSIONLESS);
}
