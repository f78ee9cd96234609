/**
 * A recent sign-in before changing how one signs in (NIST SP 800-63B
 * §6.1.2.1: binding an authenticator needs authentication; OWASP
 * Authentication and Multifactor Authentication Cheat Sheets:
 * re-authenticate before changing factors): adding or removing a passkey and
 * turning one-time codes on need a session that signed in within
 * {@link RECENT_SIGN_IN_SECONDS} (and with two factors once the member has
 * a second one: {@link factorChangeNow}), so that whoever holds a member's session for
 * a moment — a borrowed computer, a stolen cookie — cannot bind a factor of
 * their own that would outlast a password reset. Signing in again renews the
 * session (same `sid`, new `auth_time`: sessions.ts `createSession`).
 */
import type { Executor } from '../db/executor.ts';
import { isSecondFactorEnabled } from './second-factor-status.ts';
import type { SessionContext } from './sessions.ts';

/** How long after signing in the factors may be changed. */
export const RECENT_SIGN_IN_SECONDS = 15 * 60;

export function signedInRecently(session: Pick<SessionContext, 'authTime'>, now: Date): boolean {
  return now.getTime() - session.authTime.getTime() <= RECENT_SIGN_IN_SECONDS * 1000;
}

/** Why factors may not be changed now, or `allowed`. */
export type FactorChange = 'allowed' | 'sign-in-again' | 'second-factor-needed';

/**
 * Whether the session may add or remove a factor now: it signed in recently and, once the member has a
 * second factor, with two factors (NIST SP 800-63B §6.1.2.1: binding an authenticator needs authentication
 * at the level it will be used at). Without the second condition, a session signed in with a security key
 * that verified nobody (one factor) could add a passkey that does verify its user, and sign in with two
 * factors from then on, or remove the member's other passkeys. A member's first factor needs the password's
 * sign-in only (they have nothing more to prove it with). The member's factors are read only for a recent
 * sign-in.
 */
export async function factorChangeNow(db: Executor, session: Pick<SessionContext, 'authTime' | 'amr' | 'user'>, now: Date): Promise<FactorChange> {
  if (!signedInRecently(session, now)) return 'sign-in-again';
  if (!session.amr.includes('mfa') && await isSecondFactorEnabled(db, session.user.id)) return 'second-factor-needed';
  return 'allowed';
}

/** The login page, coming back to `returnTo` (a path on this site) once signed in again. */
export function signInAgainHref(returnTo: string): string {
  return `/login?${new URLSearchParams({ return_to: returnTo }).toString()}`;
}
