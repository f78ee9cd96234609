/**
 * REQUIRE_SECOND_FACTOR (NIST SP 800-63B §4.2: AAL2 for privileged access;
 * OWASP Multifactor Authentication Cheat Sheet): the roles that must have a
 * second factor — a passkey or one-time codes. A member of such a role
 * without one is signed in, but reaches only /settings/security (to set one
 * up), logout and static files until they have one.
 */
import type { Executor } from '../db/executor.ts';
import { findSecondFactors, hasSecondFactor } from './one-time-codes/one-time-codes.repository.ts';
import type { SessionContext } from './sessions.ts';

/** Where the member sets up a second factor. */
export const ENROLMENT_PAGE = '/settings/security';

/** Whether this session's member must set up a second factor before anything else. */
export async function mustSetUpSecondFactor(db: Executor, requiredRoles: readonly number[], session: SessionContext): Promise<boolean> {
  if (!requiredRoles.includes(session.user.role)) return false;
  return !hasSecondFactor(await findSecondFactors(db, session.user.id));
}

/** Paths a member who must set up a second factor still reaches (everything under the enrolment page, too). */
const ALWAYS_REACHABLE = [ENROLMENT_PAGE, '/logout', '/static/', '/language/', '/login', '/health', '/metrics', '/.well-known/'];

export function isReachableBeforeEnrolment(url: string): boolean {
  const path = url.split('?')[0]!;
  return ALWAYS_REACHABLE.some((prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`) || (prefix === '/login' && path.startsWith('/login/')));
}
