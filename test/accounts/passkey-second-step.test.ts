/**
 * A passkey as the second step (`POST /login/second-factor/passkey`): after
 * the password, or at the step-up of a live session. The member's own
 * passkey completes the step with the password's methods and its own —
 * a security key that verifies nobody is then the second factor beside the
 * password — clears the login counters the password left, and another
 * member's passkey proves nothing. Software authenticator, app.inject(),
 * real database.
 */
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/accounts/session-http.ts';
import { createSession } from '../../src/accounts/sessions.ts';
import { listMigrations } from '../../src/db/migrate.ts';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { codeAt, enrol, passwordStep, postForm, sessionCookieOf } from '../helpers/one-time-codes.ts';
import { renewedSession, type TestSession } from '../helpers/session.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';

const ORIGIN = 'http://localhost:8080';
const lines: string[] = [];
const METRICS_TOKEN = 'metrics-token-for-passkey-second-step-0123';
const t = useTestApp({ env: { LOG_LEVEL: 'info', METRICS_TOKEN, REQUIRE_SECOND_FACTOR: 'orga' }, logStream: { write: (line) => { lines.push(line); } } });
const events = (name: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.event === name);

function json(url: string, body: object, cookie: string, remoteAddress?: string) {
  return t.app.inject({ method: 'POST', url, payload: body, headers: { cookie, 'accept-language': 'en' }, ...(remoteAddress ? { remoteAddress } : {}) });
}

/** Adds a passkey in a fresh session of the member; the session (under its renewed id) is returned. */
async function register(session: TestSession, authenticator: SoftwareAuthenticator): Promise<TestSession> {
  const options = await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie);
  expect(options.statusCode).toBe(200);
  const response = authenticator.create((options.json() as { options: PublicKeyCredentialCreationOptionsJSON }).options);
  const answer = await json('/settings/security/passkeys', { csrf_token: session.csrfToken, name: 'Key', response }, session.cookie);
  expect(answer.statusCode).toBe(201);
  return renewedSession(session, answer);
}

/** A member with a passkey (and nothing else), and the authenticator holding it. */
async function memberWithPasskey(options: { role?: 'orga'; userVerified?: boolean; remember?: boolean } = {}) {
  const member = await makeUser(t.db, { role: options.role });
  const authenticator = new SoftwareAuthenticator(ORIGIN, { userVerified: options.userVerified ?? false });
  const session = await register(await t.logIn(member, options.remember), authenticator);
  return { member, authenticator, session };
}

/** The passkey button of the second step: options bound to the form's token, then the assertion. */
async function passkeyStep(authenticator: SoftwareAuthenticator, step: { cookie: string; csrf: string }, extra: object = {}, remoteAddress?: string) {
  const options = await json('/login/passkey/options', { csrf_token: step.csrf }, step.cookie);
  expect(options.statusCode).toBe(200);
  const response = authenticator.get((options.json() as { options: PublicKeyCredentialRequestOptionsJSON }).options);
  return json('/login/second-factor/passkey', { csrf_token: step.csrf, response, ...extra }, step.cookie, remoteAddress);
}

const newestSession = async (userId: number) => t.db.selectFrom('sessions').select(['sid', 'amr', 'auth_time']).where('user_id', '=', userId)
  .orderBy('created_at', 'desc').executeTakeFirstOrThrow();
const pendingLogins = async (userId: number) => (await t.db.selectFrom('pending_logins').select('user_id').where('user_id', '=', userId).execute()).length;

describe('a passkey at the second step of a login', () => {
  it('the page offers it on the second step\'s own path', async () => {
    const { member } = await memberWithPasskey();
    const step = await passwordStep(t.app, member);
    expect(step.response.headers.location).toBe('/login/second-factor');
    const page = await t.app.inject({ url: '/login/second-factor', headers: { cookie: step.cookie, 'accept-language': 'en' } });
    // The only way on: focused, so that Enter or a tap starts it.
    expect(page.body).toContain('<button type="button" data-passkey-login="/login/second-factor/passkey" hidden autofocus>Use a passkey</button>');
    expect(page.body).toContain('Confirm the login with your passkey.');
    expect(page.body).not.toContain('name="code"');
  });

  it('a key that verified nobody, after the password, is two factors: pwd hwk mfa; the pending login is taken', async () => {
    const { member, authenticator } = await memberWithPasskey();
    const step = await passwordStep(t.app, member, '/my-apps');
    const answer = await passkeyStep(authenticator, step);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.json()).toEqual({ location: '/my-apps' });
    expect(answer.cookies.find((c) => c.name === SESSION_COOKIE)?.httpOnly).toBe(true);
    expect(answer.cookies.find((c) => c.name === 'fs_pending_login')).toMatchObject({ value: '', path: '/login/second-factor' });
    expect((await newestSession(member.id)).amr).toEqual(['pwd', 'hwk', 'mfa']);
    expect(await pendingLogins(member.id)).toBe(0);
    expect(events('account.second_factor.succeeded').at(-1)).toMatchObject({ userId: member.id, method: 'passkey', amr: ['pwd', 'hwk', 'mfa'], stepUp: false });
    // The login is recorded when its session starts, after both factors (the password step alone recorded none).
    expect(events('account.login.succeeded').at(-1)).toMatchObject({ userId: member.id, amr: ['pwd', 'hwk', 'mfa'] });
    // The pending login was used once: the same answer again signs nobody in.
    const again = await passkeyStep(authenticator, step);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({ error: 'This login has expired. Please sign in again.' });
  });

  it('a passkey that verified its member adds user: pwd hwk user mfa', async () => {
    const { member, authenticator } = await memberWithPasskey({ userVerified: true });
    const answer = await passkeyStep(authenticator, await passwordStep(t.app, member));
    expect(answer.statusCode).toBe(200);
    expect((await newestSession(member.id)).amr).toEqual(['pwd', 'hwk', 'user', 'mfa']);
  });

  it('clears the counters the password left: a member who signs in with password and passkey every day is never slowed down', async () => {
    const { member, authenticator } = await memberWithPasskey();
    // More than the five free failures per account and address: each password step is counted until its second step succeeds.
    for (let i = 0; i < 7; i += 1) {
      const step = await passwordStep(t.app, member);
      expect(step.response.headers.location).toBe('/login/second-factor');
      expect((await passkeyStep(authenticator, step)).statusCode).toBe(200);
    }
    expect(await t.db.selectFrom('login_throttle').select('key').where('failures', '>', 0).where('key', 'like', `%${member.email}%`).execute()).toEqual([]);
  });

  it('refuses another member\'s passkey before anything is written for it: no session, the pending login kept, the attempt logged', async () => {
    const { member } = await memberWithPasskey();
    const other = await memberWithPasskey();
    // Disabled, too: that is not said to whoever holds the passkey here.
    await t.db.updateTable('users').set({ disabled_at: t.clock.now() }).where('id', '=', other.member.id).execute();
    const step = await passwordStep(t.app, member);
    const before = await t.db.selectFrom('sessions').select('sid').where('user_id', 'in', [member.id, other.member.id]).orderBy('sid').execute();
    const theirPasskey = () => t.db.selectFrom('passkeys').select(['sign_count', 'last_used_at']).where('user_id', '=', other.member.id).executeTakeFirstOrThrow();
    const passkeyBefore = await theirPasskey();
    const answer = await passkeyStep(other.authenticator, step);
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toEqual({ error: 'This passkey belongs to another account. Use a passkey of this account.' });
    expect(await theirPasskey()).toEqual(passkeyBefore);
    expect(events('account.login.disabled').filter((e) => e.userId === other.member.id)).toEqual([]);
    expect(answer.cookies.find((c) => c.name === SESSION_COOKIE)).toBeUndefined();
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', 'in', [member.id, other.member.id]).orderBy('sid').execute()).toEqual(before);
    expect(await pendingLogins(member.id)).toBe(1);
    expect(events('account.second_factor.failed').at(-1)).toMatchObject({ userId: member.id, method: 'passkey', reason: 'other-member', stepUp: false });
  });

  it('refuses a bad signature, a missing CSRF token, and a browser with neither a pending login nor a session', async () => {
    const { member, authenticator } = await memberWithPasskey();
    const step = await passwordStep(t.app, member);
    const options = await json('/login/passkey/options', { csrf_token: step.csrf }, step.cookie);
    const good = authenticator.get((options.json() as { options: PublicKeyCredentialRequestOptionsJSON }).options);
    const tampered = { ...good, response: { ...good.response, signature: `${good.response.signature.slice(0, -4)}AAAA` } };
    const bad = await json('/login/second-factor/passkey', { csrf_token: step.csrf, response: tampered }, step.cookie);
    expect(bad.statusCode).toBe(401);
    // Not "or sign in with your password": the password was just taken.
    expect(bad.json()).toEqual({ error: 'Confirming with this passkey did not work. Try again.' });
    expect(events('account.second_factor.failed').at(-1)).toMatchObject({ userId: member.id, method: 'passkey', reason: 'signature' });
    const noToken = await json('/login/second-factor/passkey', { response: good }, step.cookie);
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json()).toEqual({ error: 'The form has expired. Please try again.' });
    const csrfOnly = step.cookie.split('; ').filter((c) => c.startsWith('CSRF_TOKEN=')).join('; ');
    const stranger = await passkeyStep(authenticator, { cookie: csrfOnly, csrf: step.csrf });
    expect(stranger.statusCode).toBe(401);
    expect(stranger.json()).toEqual({ error: 'This login has expired. Please sign in again.' });
    expect(await pendingLogins(member.id)).toBe(1);
  });

  it('answers a body of the wrong shape, or no JSON at all, with a JSON 400, the pending login kept and nothing counted', async () => {
    const { member } = await memberWithPasskey();
    const step = await passwordStep(t.app, member);
    const counters = () => t.db.selectFrom('login_throttle').select(['key', 'failures']).where('key', 'like', `%${member.email}%`).orderBy('key').execute();
    const before = await counters();
    const raw = (payload: string) => t.app.inject({
      method: 'POST', url: '/login/second-factor/passkey', payload, headers: { cookie: step.cookie, 'content-type': 'application/json', 'accept-language': 'en' },
    });
    const nul = { id: 'a\u0000b', rawId: 'x', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'x', authenticatorData: 'x', signature: 'x' } };
    for (const payload of [JSON.stringify({ csrf_token: step.csrf, response: 5 }), JSON.stringify({ csrf_token: step.csrf, response: nul }), JSON.stringify([]), '{"csrf_token":', 'null']) {
      const answer = await raw(payload);
      expect(answer.statusCode, payload).toBe(400);
      expect(answer.headers['content-type'], payload).toMatch(/^application\/json/);
      expect(answer.json(), payload).toEqual({ error: 'The request is invalid.' });
    }
    expect(await pendingLogins(member.id)).toBe(1);
    expect(await counters()).toEqual(before);
  });

  it('counts refused passkeys on the account\'s login counters, as wrong codes are', async () => {
    const { member } = await memberWithPasskey();
    // A credential the server never stored: its registration was not completed.
    const stranger = new SoftwareAuthenticator(ORIGIN);
    const other = await t.logIn(await makeUser(t.db));
    stranger.create((await json('/settings/security/passkeys/options', { csrf_token: other.csrfToken }, other.cookie)).json().options);
    const address = '198.51.100.31';
    const step = await passwordStep(t.app, member);
    let answer;
    // From another address than the password's: five refused passkeys fill the five free failures of the account and address.
    for (let i = 0; i < 5; i += 1) answer = await passkeyStep(stranger, step, {}, address);
    expect(answer!.statusCode).toBe(401);
    const throttled = await passkeyStep(stranger, step, {}, address);
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json()).toEqual({ error: 'Too many failed logins. Please try again in one minute.' });
  });
});

describe('a passkey at the step-up', () => {
  it('an organisation member whose only factor is a key that verifies nobody: password and key meet the requirement', async () => {
    const { member, authenticator } = await memberWithPasskey({ role: 'orga' });
    const step = await passwordStep(t.app, member, '/admin/oauthclients');
    const answer = await passkeyStep(authenticator, step);
    expect(answer.json()).toEqual({ location: '/admin/oauthclients' });
    const admin = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: sessionCookieOf(answer) } });
    expect(admin.statusCode).toBe(200);
  });

  it('a password-only session steps up with the passkey: same sid, pwd hwk mfa, then the admin screen', async () => {
    // Signed in with the password before the passkey existed: the gate asks for it.
    const { member, authenticator, session } = await memberWithPasskey({ role: 'orga' });
    const held = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: session.cookie } });
    expect(held.headers.location).toBe('/login/second-factor?return_to=%2Fadmin%2Foauthclients');
    const before = await newestSession(member.id);
    expect(before.amr).toEqual(['pwd']);
    const answer = await passkeyStep(authenticator, { cookie: session.cookie, csrf: session.csrfToken }, { return_to: '/admin/oauthclients' });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ location: '/admin/oauthclients' });
    const after = await newestSession(member.id);
    expect(after.sid).toBe(before.sid);
    expect(after.amr).toEqual(['pwd', 'hwk', 'mfa']);
    expect(events('account.second_factor.succeeded').at(-1)).toMatchObject({ userId: member.id, method: 'passkey', stepUp: true });
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: renewedSession(session, answer).cookie } })).statusCode).toBe(200);
    const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.body).toMatch(/^second_factor_total\{outcome="passkey"\} [1-9]/m);
  });

  it('a session signed in with a key that verified nobody is not offered codes (a second thing held), but a new sign-in with the password', async () => {
    const member = await makeUser(t.db, { role: 'orga' });
    const { secret, session: enrolled } = await enrol(t.app, await t.logIn(member), t.clock.now());
    expect(enrolled.cookie).toContain(SESSION_COOKIE);
    await t.db.insertInto('passkeys').values({
      user_id: member.id, credential_id: `held-${member.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    const created = await createSession(t.db, t.clock.now, member.id, false, undefined, undefined, ['hwk']);
    const cookie = `${SESSION_COOKIE}=${created.id}`;
    const held = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie } });
    expect(held.headers.location).toBe('/login/second-factor?return_to=%2Fadmin%2Foauthclients');
    const page = await t.app.inject({ url: held.headers.location!, headers: { cookie, 'accept-language': 'en' } });
    expect(page.body).not.toContain('name="code"');
    expect(page.body).toContain('<a href="/login?return_to=%2Fadmin%2Foauthclients">Sign in again with your password and second factor</a>');
    // A code posted all the same is refused unchecked: it would be a second thing held, not a second factor.
    t.clock.advance(30);
    const posted = await postForm(t.app, '/login/second-factor', `${cookie}; CSRF_TOKEN=${created.csrfToken}`, { csrf_token: created.csrfToken, code: codeAt(secret, t.clock.now()), return_to: '/admin/oauthclients' });
    expect(posted.statusCode).toBe(400);
    expect(posted.body).toContain('Dafür braucht es eine Anmeldung mit deinem Passwort und deinem zweiten Faktor.');
    expect((await newestSession(member.id)).amr).toEqual(['hwk']);
    // Not spent: the same code still signs the password in at the second step.
    const login = await passwordStep(t.app, member, '/admin/oauthclients');
    const second = await postForm(t.app, '/login/second-factor', login.cookie, { csrf_token: login.csrf, code: codeAt(secret, t.clock.now()) });
    expect(second.headers.location).toBe('/admin/oauthclients');
  });
});

describe('a step-up with the passkey alone', () => {
  /** A browser signed in with the key alone (the login page's passkey): amr hwk. */
  async function signedInWithKey(authenticator: SoftwareAuthenticator, remoteAddress: string) {
    const csrf = `csrf-${Math.random().toString(36).slice(2)}-padding-to-make-it-long-enough`;
    const options = await json('/login/passkey/options', { csrf_token: csrf }, `CSRF_TOKEN=${csrf}`, remoteAddress);
    const response = authenticator.get((options.json() as { options: PublicKeyCredentialRequestOptionsJSON }).options);
    const signedIn = await json('/login/passkey', { csrf_token: csrf, response }, `CSRF_TOKEN=${csrf}`, remoteAddress);
    expect(signedIn.statusCode).toBe(200);
    return { cookie: sessionCookieOf(signedIn), csrf: signedIn.cookies.find((c) => c.name === 'CSRF_TOKEN')!.value };
  }

  async function wrongPassword(email: string, remoteAddress: string) {
    const page = await t.app.inject({ url: '/login', remoteAddress });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    return t.app.inject({ method: 'POST', url: '/login', remoteAddress, payload: new URLSearchParams({ csrf_token: csrf, email, password: 'not the password' }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } });
  }

  it('leaves the password\'s failed-login counters as they are and gives no device cookie: a key alone buys no password guesses', async () => {
    const { member, authenticator } = await memberWithPasskey();
    const address = '203.0.113.7';
    const browser = await signedInWithKey(authenticator, address);
    for (let i = 0; i < 4; i += 1) expect((await wrongPassword(member.email, address)).statusCode).toBe(401);
    const stepped = await passkeyStep(authenticator, browser, {}, address);
    expect(stepped.statusCode).toBe(200);
    expect(stepped.cookies.map((c) => c.name).sort()).toEqual(['CSRF_TOKEN', SESSION_COOKIE]);
    // The fifth wrong password is the last free one of the account and address, as without the step-up.
    expect((await wrongPassword(member.email, address)).statusCode).toBe(401);
    expect((await wrongPassword(member.email, address)).statusCode).toBe(429);
  });

  it('is not held up by the account\'s counter, which anybody can fill: it is counted per client address', async () => {
    const { member, authenticator } = await memberWithPasskey();
    for (let i = 0; i < 10; i += 1) await wrongPassword(member.email, `198.51.100.${100 + i}`);
    expect((await wrongPassword(member.email, '198.51.100.200')).statusCode).toBe(429);
    const browser = await signedInWithKey(authenticator, '192.0.2.44');
    expect((await passkeyStep(authenticator, browser, {}, '192.0.2.44')).statusCode).toBe(200);
  });

  it('a key that verified nobody keeps the sign-in\'s auth_time and expiry; one that verified the member is a new sign-in', async () => {
    for (const [userVerified, renewed] of [[false, false], [true, true]] as const) {
      const { member, authenticator, session } = await memberWithPasskey({ userVerified });
      const before = await t.db.selectFrom('sessions').select(['sid', 'auth_time', 'expires_at']).where('user_id', '=', member.id).executeTakeFirstOrThrow();
      t.clock.advance(600);
      const stepped = await passkeyStep(authenticator, { cookie: session.cookie, csrf: session.csrfToken });
      expect(stepped.statusCode).toBe(200);
      const after = await t.db.selectFrom('sessions').select(['sid', 'auth_time', 'expires_at', 'amr']).where('user_id', '=', member.id).executeTakeFirstOrThrow();
      expect(after.sid).toBe(before.sid);
      // A passkey that verified the member signs in again by itself: its own methods, not the old password's.
      expect(after.amr).toEqual(userVerified ? ['hwk', 'user', 'mfa'] : ['pwd', 'hwk', 'mfa']);
      if (renewed) expect(after.auth_time.getTime() - before.auth_time.getTime()).toBeGreaterThanOrEqual(600_000);
      else expect([after.auth_time, after.expires_at]).toEqual([before.auth_time, before.expires_at]);
    }
  });

  it('an organisation member\'s 12 hours are counted from the password, not moved by a key that verified nobody', async () => {
    // "Stay logged in": 14 days, but 12 hours for this role.
    const { member, authenticator, session } = await memberWithPasskey({ role: 'orga', remember: true });
    t.clock.advance(11 * 3600);
    // Used all the while (the idle limit is not the subject here).
    await t.db.updateTable('sessions').set({ last_seen_at: t.clock.now() }).where('user_id', '=', member.id).execute();
    const stepped = await passkeyStep(authenticator, { cookie: session.cookie, csrf: session.csrfToken }, { return_to: '/admin/oauthclients' });
    const after = renewedSession(session, stepped);
    // Used every 20 minutes, until the 12 hours of the password's sign-in are over.
    for (let minutes = 0; minutes < 60; minutes += 20) {
      expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: after.cookie } })).statusCode).toBe(200);
      t.clock.advance(20 * 60);
    }
    t.clock.advance(60);
    const ended = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: after.cookie } });
    expect(ended.headers.location).toBe('/login?return_to=%2Fadmin%2Foauthclients');
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', '=', member.id).execute()).toEqual([]);
  });

  it('refuses the same assertion twice: its challenge was used', async () => {
    const { member, authenticator, session } = await memberWithPasskey();
    const options = await json('/login/passkey/options', { csrf_token: session.csrfToken }, session.cookie);
    const response = authenticator.get((options.json() as { options: PublicKeyCredentialRequestOptionsJSON }).options);
    const first = await json('/login/second-factor/passkey', { csrf_token: session.csrfToken, response }, session.cookie);
    expect(first.statusCode).toBe(200);
    const renewed = renewedSession(session, first);
    // The old cookie names no session any more; the renewed one gets the assertion refused.
    const replayed = await json('/login/second-factor/passkey', { csrf_token: session.csrfToken, response }, session.cookie);
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json()).toEqual({ error: 'This login has expired. Please sign in again.' });
    const again = await json('/login/second-factor/passkey', { csrf_token: renewed.csrfToken, response }, renewed.cookie);
    expect(again.statusCode).toBe(401);
    expect(events('account.second_factor.failed').at(-1)).toMatchObject({ userId: member.id, method: 'passkey', reason: 'invalid-response', stepUp: true });
  });
});

describe('who the step is for', () => {
  it('is the pending login\'s member even when the browser holds another member\'s session', async () => {
    const { member, authenticator } = await memberWithPasskey();
    const someoneElse: TestUser = await makeUser(t.db);
    const theirs = await t.logIn(someoneElse);
    // The login form in a browser signed in as someone else carries that session's token.
    const page = await t.app.inject({ url: '/login', headers: { cookie: theirs.cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const password = await postForm(t.app, '/login', theirs.cookie, { csrf_token: csrf, email: member.email, password: member.password });
    expect(password.headers.location).toBe('/login/second-factor');
    const pending = password.cookies.find((c) => c.name === 'fs_pending_login')!;
    const answer = await passkeyStep(authenticator, { cookie: `${theirs.cookie}; fs_pending_login=${pending.value}`, csrf });
    expect(answer.statusCode).toBe(200);
    expect((await newestSession(member.id)).amr).toEqual(['pwd', 'hwk', 'mfa']);
    // Their session was replaced, not renewed for the member: it is gone.
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', '=', someoneElse.id).execute()).toEqual([]);
  });
});

describe('sessions from before the rule', () => {
  it('migration 068 takes mfa from the sessions and grants whose methods are things held alone, and the mfa level met; the others keep theirs', async () => {
    const member = await makeUser(t.db);
    const made: Record<string, string[]> = {
      'code beside a key': ['hwk', 'otp', 'mfa'], 'code beside a synced key': ['swk', 'otp', 'mfa'],
      'password and code': ['pwd', 'otp', 'mfa'], 'verified key': ['hwk', 'user', 'mfa'], 'key alone': ['hwk'], password: ['pwd'],
    };
    const ids: Record<string, string> = {};
    for (const [name, amr] of Object.entries(made)) {
      const session = await createSession(t.db, t.clock.now, member.id, false, undefined, undefined, amr as never);
      ids[name] = (await t.db.selectFrom('sessions').select('sid').where('csrf_token', '=', session.csrfToken).executeTakeFirstOrThrow()).sid;
    }
    await createClient(t.db, t.keys, {
      clientId: 'migration-068', name: 'Migration App', confidential: true, redirectUris: ['http://127.0.0.1:3000/callback'], scopes: ['profile'], grantTypes: [], requiredRegions: [],
    });
    const client = await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', 'migration-068').executeTakeFirstOrThrow();
    const grant = async (amr: string[], acr: string | null) => (await t.db.insertInto('oauth_grants').values({
      client_id: client.id, user_id: member.id, scopes: ['openid'], auth_time: t.clock.now(), expires_at: new Date(t.clock.now().getTime() + 3600_000), amr, acr,
    }).returning('id').executeTakeFirstOrThrow()).id;
    const heldGrant = await grant(['hwk', 'otp', 'mfa'], 'urn:foodsharing:acr:mfa');
    const passwordGrant = await grant(['pwd', 'otp', 'mfa'], 'urn:foodsharing:acr:mfa');
    const migration = (await listMigrations()).find((m) => m.version === 68)!;
    expect(migration.name).toBe('sessions_two_things_held');
    await sql.raw(migration.sql).execute(t.db);
    const grants = await t.db.selectFrom('oauth_grants').select(['id', 'amr', 'acr']).where('id', 'in', [heldGrant, passwordGrant]).orderBy('id').execute();
    expect(grants).toEqual([
      { id: heldGrant, amr: ['hwk', 'otp'], acr: null },
      { id: passwordGrant, amr: ['pwd', 'otp', 'mfa'], acr: 'urn:foodsharing:acr:mfa' },
    ]);
    const after = Object.fromEntries(await Promise.all(Object.entries(ids).map(async ([name, sid]) =>
      [name, (await t.db.selectFrom('sessions').select('amr').where('sid', '=', sid).executeTakeFirstOrThrow()).amr] as const)));
    expect(after).toEqual({
      'code beside a key': ['hwk', 'otp'], 'code beside a synced key': ['swk', 'otp'],
      'password and code': ['pwd', 'otp', 'mfa'], 'verified key': ['hwk', 'user', 'mfa'], 'key alone': ['hwk'], password: ['pwd'],
    });
  });
});
