/**
 * Password login and logout, shared by the HTML form and the JSON API.
 * Unknown email and wrong password give the same answer in the same time (no
 * enumeration); an email PostgreSQL cannot even store (NUL byte) is one more
 * unknown email, never a database error.
 */
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { ApiProblem } from '../http/problem.ts';
import { recordSuccess, reserveAttempt, throttleKeys } from './login-throttle.ts';
import { verifyAgainstDummy, verifyPassword } from './passwords.ts';
import { createSession, deleteSession, type NewSession } from './sessions.ts';
import { findUserCredentialsByEmail, type UserRow } from './users.repository.ts';

export interface LoginInput {
  email: string;
  password: string;
  rememberMe: boolean;
  ip: string;
  /** The browser's current session cookie, ended when the login succeeds. */
  previousSessionId?: string | undefined;
}

export const INVALID_CREDENTIALS = 'Wrong email or password.';
const MAX_EMAIL_LENGTH = 254;

/** Logs in; throws 429 (before the password is checked) when throttled, 401 on wrong credentials. */
export async function logIn(db: DB, clock: Clock, input: LoginInput): Promise<{ session: NewSession; user: UserRow }> {
  const email = input.email.trim();
  const keys = throttleKeys(email, input.ip);
  const wait = await reserveAttempt(db, clock, keys);
  if (wait > 0) {
    throw new ApiProblem(429, 'auth.too-many-attempts', `Too many failed logins. Try again in ${wait} seconds.`,
      undefined, { 'retry-after': String(wait) });
  }
  const found = isPossibleEmail(email) ? await findUserCredentialsByEmail(db, email) : undefined;
  const valid = found ? await verifyPassword(found.password_hash, input.password) : await verifyAgainstDummy(input.password);
  // A failure stays counted: its reservation is the record.
  if (!found || !valid) throw new ApiProblem(401, 'auth.invalid-credentials', INVALID_CREDENTIALS);
  const { password_hash: _hash, ...user } = found;
  await recordSuccess(db, keys);
  await logOut(db, input.previousSessionId);
  const session = await createSession(db, clock, user.id, input.rememberMe);
  return { session, user };
}

/** Ends the session with this cookie value, if any. */
export async function logOut(db: DB, sessionId: string | undefined): Promise<void> {
  if (sessionId) await deleteSession(db, sessionId);
}

function isPossibleEmail(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && !email.includes('\u0000');
}
