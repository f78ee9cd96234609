/** Driving one-time codes as a member does: enrolment on /settings/security, codes computed by otpauth. */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { renewedSession, type TestSession } from './session.ts';

/** The code an authenticator app shows for `secret` (base32, spaces allowed) at `at`. */
export function codeAt(secret: string, at: Date): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret.replace(/\s/g, '')), algorithm: 'SHA1', digits: 6, period: 30, timestamp: at.getTime() });
}

export function postForm(app: FastifyInstance, url: string, cookie: string, form: Record<string, string>) {
  return app.inject({ method: 'POST', url, payload: new URLSearchParams(form).toString(), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } });
}

/** Starts the enrolment and reads the secret the page shows as text. */
export async function startEnrolment(app: FastifyInstance, session: TestSession): Promise<string> {
  const started = await postForm(app, '/settings/security/one-time-codes/start', session.cookie, { csrf_token: session.csrfToken });
  expect(started.statusCode).toBe(303);
  const page = await app.inject({ url: '/settings/security', headers: { cookie: session.cookie } });
  const secret = /<code id="otp-secret" class="secret">([A-Z2-7 ]+)<\/code>/.exec(page.body)?.[1];
  expect(secret).toBeDefined();
  return secret!.replace(/ /g, '');
}

/** Enrols with the code of `at`: the recovery codes shown, and the session under the new id the enrolment gave it. */
export async function enrol(app: FastifyInstance, session: TestSession, at: Date): Promise<{ secret: string; recoveryCodes: string[]; session: TestSession }> {
  const secret = await startEnrolment(app, session);
  const confirmed = await postForm(app, '/settings/security/one-time-codes/confirm', session.cookie, { csrf_token: session.csrfToken, code: codeAt(secret, at) });
  expect(confirmed.statusCode).toBe(200);
  const recoveryCodes = [...confirmed.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
  expect(recoveryCodes).toHaveLength(10);
  return { secret, recoveryCodes, session: renewedSession(session, confirmed) };
}

/** The password step of the HTML login: the pending-login cookie (and the CSRF cookie) for the second step. */
export async function passwordStep(app: FastifyInstance, user: { email: string; password: string }, returnTo = '/', browserCookie?: string) {
  const page = await app.inject({ url: '/login' });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  const csrfCookie = [...page.cookies.map((c) => `${c.name}=${c.value}`), ...(browserCookie ? [browserCookie] : [])].join('; ');
  const response = await postForm(app, '/login', csrfCookie, { csrf_token: csrf, email: user.email, password: user.password, return_to: returnTo });
  const cookie = [csrfCookie, ...response.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  return { response, cookie, csrf };
}

/** The second step with `code`. */
export function secondStep(app: FastifyInstance, step: { cookie: string; csrf: string }, code: string) {
  return postForm(app, '/login/second-factor', step.cookie, { csrf_token: step.csrf, code });
}

/** The cookie header of a response's session (for later requests). */
export function sessionCookieOf(response: { cookies: { name: string; value: string }[] }): string {
  return response.cookies.filter((c) => c.name === 'fs_session' || c.name === 'CSRF_TOKEN').map((c) => `${c.name}=${c.value}`).join('; ');
}
