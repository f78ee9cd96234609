/**
 * A recent sign-in before changing how one signs in (NIST SP 800-63B
 * §6.1.2.1: binding an authenticator needs authentication; OWASP
 * Authentication and Multifactor Authentication Cheat Sheets:
 * re-authenticate before changing factors): adding or removing a passkey and
 * turning one-time codes on need a session that signed in within
 * {@link RECENT_SIGN_IN_SECONDS}, so that whoever holds a member's session for
 * a moment — a borrowed computer, a stolen cookie — cannot bind a factor of
 * their own that would outlast a password reset. Signing in again renews the
 * session (same `sid`, new `auth_time`: sessions.ts `createSession`).
 */
import type { SessionContext } from './sessions.ts';

/** How long after signing in the factors may be changed. */
export const RECENT_SIGN_IN_SECONDS = 15 * 60;

export function signedInRecently(session: Pick<SessionContext, 'authTime'>, now: Date): boolean {
  return now.getTime() - session.authTime.getTime() <= RECENT_SIGN_IN_SECONDS * 1000;
}

/** The login page, coming back to `returnTo` (a path on this site) once signed in again. */
export function signInAgainHref(returnTo: string): string {
  return `/login?${new URLSearchParams({ return_to: returnTo }).toString()}`;
}
