/**
 * Password login shared by the HTML form and the JSON API. Unknown email and
 * wrong password give the same answer in the same time (no enumeration).
 */
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { ApiProblem } from '../http/problem.ts';
import { clearFailures, recordFailure, secondsUntilAllowed, throttleKeys } from './login-throttle.ts';
import { verifyAgainstDummy, verifyPassword } from './passwords.ts';
import { createSession, type NewSession } from './sessions.ts';
import { findUserCredentialsByEmail, type UserRow } from './users.repository.ts';

export interface LoginInput {
  email: string;
  password: string;
  rememberMe: boolean;
  ip: string;
}

export const INVALID_CREDENTIALS = 'Wrong email or password.';

export async function logIn(db: DB, clock: Clock, input: LoginInput): Promise<{ session: NewSession; user: UserRow }> {
  const keys = throttleKeys(input.email, input.ip);
  const wait = await secondsUntilAllowed(db, clock, keys);
  if (wait > 0) {
    throw new ApiProblem(429, 'auth.too-many-attempts', `Too many failed logins. Try again in ${wait} seconds.`,
      undefined, { 'retry-after': String(wait) });
  }
  const found = input.email.length <= 254 ? await findUserCredentialsByEmail(db, input.email.trim()) : undefined;
  const valid = found ? await verifyPassword(found.password_hash, input.password) : await verifyAgainstDummy(input.password);
  if (!found || !valid) {
    await recordFailure(db, clock, keys);
    throw new ApiProblem(401, 'auth.invalid-credentials', INVALID_CREDENTIALS);
  }
  const { password_hash: _hash, ...user } = found;
  await clearFailures(db, keys.account);
  const session = await createSession(db, clock, user.id, input.rememberMe);
  return { session, user };
}
