/**
 * Passkeys on the server: adding one at /settings/security and signing in
 * with it at /login/passkey, driven by a software authenticator
 * (helpers/software-authenticator.ts) through app.inject() on a real
 * database. Challenges are single use, bound to the browser and expire after
 * five minutes; another origin or RP ID, an unknown credential, a bad
 * signature and a counter that does not move forward are all refused with
 * one answer; what was (not) written is checked each time.
 */
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHALLENGE_SECONDS } from '../../src/accounts/passkeys/challenges.ts';
import { SESSION_COOKIE } from '../../src/accounts/session-http.ts';
import { createSession } from '../../src/accounts/sessions.ts';
import { deleteMember } from '../../src/accounts/member-deletion.ts';
import { disableMember, enableMember } from '../../src/accounts/member-status.ts';
import { countPasskeys, deletePasskeysOfUser } from '../../src/accounts/passkeys/passkeys.repository.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { backendPid, gatedBeforeUpdateOf, untilWaitingOn } from '../helpers/lock-waits.ts';
import { renewedSession, sessionSignedInWith, type TestSession } from '../helpers/session.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';
import { installWriteLog, type WriteLog } from '../helpers/write-log.ts';

const ORIGIN = 'http://localhost:8080';
const lines: string[] = [];
const METRICS_TOKEN = 'metrics-token-for-passkey-tests-0123456789';
const t = useTestApp({ env: { LOG_LEVEL: 'info', METRICS_TOKEN }, logStream: { write: (line) => { lines.push(line); } } });
const events = (name: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.event === name);
const FAILED = { error: 'Signing in with this passkey did not work. Try again or sign in with your password.' };

function json(url: string, body: object, cookie = '') {
  return t.app.inject({ method: 'POST', url, payload: body, headers: { cookie, 'accept-language': 'en' } });
}

/** A session of the member that may add and remove passkeys whatever they have: signed in with two factors. */
const twoFactorSession = (userId: number) => sessionSignedInWith(t.db, t.clock.now, userId, ['pwd', 'otp', 'mfa']);

/** Adds a passkey for a logged-in member; the authenticator keeps its key. */
async function register(session: TestSession, authenticator: SoftwareAuthenticator, name = 'Laptop') {
  const options = await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie);
  expect(options.statusCode).toBe(200);
  const response = authenticator.create((options.json() as { options: PublicKeyCredentialCreationOptionsJSON }).options);
  const answer = await json('/settings/security/passkeys', { csrf_token: session.csrfToken, name, response }, session.cookie);
  // Adding a passkey renews the session's id: the test goes on with the new one.
  if (answer.statusCode === 201) Object.assign(session, renewedSession(session, answer));
  return { response, answer };
}

/** A browser before login: its CSRF cookie, and a challenge bound to it. */
async function signInOptions(csrf = `csrf-${Math.random().toString(36).slice(2)}-padding-to-make-it-long-enough`) {
  const cookie = `CSRF_TOKEN=${csrf}`;
  const answer = await json('/login/passkey/options', { csrf_token: csrf }, cookie);
  expect(answer.statusCode).toBe(200);
  return { csrf, cookie, options: (answer.json() as { options: PublicKeyCredentialRequestOptionsJSON }).options };
}

async function signIn(authenticator: SoftwareAuthenticator, overrides: Parameters<SoftwareAuthenticator['get']>[2] = {}, returnTo = '/') {
  const { csrf, cookie, options } = await signInOptions();
  const response = authenticator.get(options, undefined, overrides);
  return { response, csrf, cookie, answer: await json('/login/passkey', { csrf_token: csrf, return_to: returnTo, response }, cookie) };
}

const passkeyRow = (userId: number) => t.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();

let member: TestUser;
let session: TestSession;
let authenticator: SoftwareAuthenticator;

beforeAll(async () => {
  member = await makeUser(t.db, { firstName: 'Mia' });
  session = await twoFactorSession(member.id);
  authenticator = new SoftwareAuthenticator(ORIGIN);
});

describe('adding a passkey', () => {
  it('answers a body of the wrong shape, or no JSON at all, with a JSON 400 the page script can show, writing nothing', async () => {
    const before = await countPasskeys(t.db, member.id);
    const raw = (payload: string) => t.app.inject({
      method: 'POST', url: '/settings/security/passkeys', payload, headers: { cookie: session.cookie, 'content-type': 'application/json', 'accept-language': 'en' },
    });
    for (const payload of [JSON.stringify({ csrf_token: session.csrfToken, response: 5 }), JSON.stringify([]), '{"csrf_token":', 'null']) {
      const answer = await raw(payload);
      expect(answer.statusCode, payload).toBe(400);
      expect(answer.headers['content-type'], payload).toMatch(/^application\/json/);
      expect(answer.json(), payload).toEqual({ error: 'The request is invalid.' });
    }
    expect(await countPasskeys(t.db, member.id)).toBe(before);
  });

  it('asks for a discoverable credential with user verification preferred and no attestation, for this RP ID', async () => {
    const answer = await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie);
    const { options } = answer.json() as { options: PublicKeyCredentialCreationOptionsJSON };
    expect(options.rp).toEqual({ name: 'foodsharing', id: 'localhost' });
    expect(options.user.name).toBe(member.email);
    expect(options.user.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(options.attestation).toBe('none');
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' });
    expect(options.timeout).toBe(CHALLENGE_SECONDS * 1000);
    expect(options.pubKeyCredParams.map((p) => p.alg)).toEqual([-8, -7, -257]);
  });

  it('stores the passkey, queues the mail and logs the event', async () => {
    const { answer } = await register(session, authenticator);
    expect(answer.statusCode).toBe(201);
    expect(answer.json()).toEqual({ location: '/settings/security?passkey=added' });
    const row = await passkeyRow(member.id);
    expect(row).toMatchObject({ name: 'Laptop', device_type: 'singleDevice', backed_up: false, transports: ['internal'], last_used_at: null });
    expect(await countPasskeys(t.db, member.id)).toBe(1);
    const mails = await t.db.selectFrom('mail_outbox').select(['kind', 'recipient']).where('kind', '=', 'passkey-added').execute();
    expect(mails).toEqual([{ kind: 'passkey-added', recipient: member.email }]);
    expect(events('account.passkey.registered').at(-1)).toMatchObject({ userId: member.id, passkeyId: row.id, deviceType: 'singleDevice', backedUp: false });
    const page = await t.app.inject({ url: '/settings/security?passkey=added', headers: { cookie: session.cookie, 'accept-language': 'en' } });
    expect(page.body).toContain('<th scope="row">Laptop</th>');
    // Far down the page: the notice takes the focus, so that the browser shows it and a screen reader reads it.
    expect(page.body).toContain('<p class="notice" role="status" tabindex="-1" autofocus>The passkey was added. We sent you an email to confirm it.</p>');
    expect(page.body).toContain('<script src="/static/passkey-settings.js" defer></script>');
  });

  it('refuses a replayed response (its challenge was used), another origin, another RP ID, a cross-origin frame, a foreign session and a missing CSRF token', async () => {
    const before = await countPasskeys(t.db, member.id);
    const { response } = await register(session, new SoftwareAuthenticator(ORIGIN), 'Phone');
    expect((await json('/settings/security/passkeys', { csrf_token: session.csrfToken, name: 'again', response }, session.cookie)).statusCode).toBe(400);
    const foreignOrigin = await register(session, new SoftwareAuthenticator('https://evil.example'));
    expect(foreignOrigin.answer.statusCode).toBe(400);
    expect(foreignOrigin.answer.json()).toEqual({ error: 'The passkey could not be added. Please try again.' });
    const options = await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie);
    const otherRp = new SoftwareAuthenticator(ORIGIN).create((options.json() as { options: PublicKeyCredentialCreationOptionsJSON }).options, { rpId: 'evil.example' });
    expect((await json('/settings/security/passkeys', { csrf_token: session.csrfToken, response: otherRp }, session.cookie)).statusCode).toBe(400);
    // Made in a frame of another site (WebAuthn L3 §7.1: crossOrigin, topOrigin): refused, and the challenge is left for a retry.
    const framed = await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie);
    const framedOptions = (framed.json() as { options: PublicKeyCredentialCreationOptionsJSON }).options;
    const inFrame = new SoftwareAuthenticator(ORIGIN).create(framedOptions, { topOrigin: 'https://evil.example' });
    const framedAnswer = await json('/settings/security/passkeys', { csrf_token: session.csrfToken, response: inFrame }, session.cookie);
    expect(framedAnswer.statusCode).toBe(400);
    expect(framedAnswer.json()).toEqual({ error: 'The passkey could not be added. Please try again.' });
    const retried = await json('/settings/security/passkeys', { csrf_token: session.csrfToken, response: new SoftwareAuthenticator(ORIGIN).create(framedOptions) }, session.cookie);
    expect(retried.statusCode).toBe(201);
    Object.assign(session, renewedSession(session, retried));
    // A challenge is bound to the session that asked for it.
    const other = await t.logIn(await makeUser(t.db));
    const stolen = await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie);
    const response2 = new SoftwareAuthenticator(ORIGIN).create((stolen.json() as { options: PublicKeyCredentialCreationOptionsJSON }).options);
    expect((await json('/settings/security/passkeys', { csrf_token: other.csrfToken, response: response2 }, other.cookie)).statusCode).toBe(400);
    expect((await json('/settings/security/passkeys/options', {}, session.cookie)).statusCode).toBe(403);
    expect((await json('/settings/security/passkeys/options', { csrf_token: 'x' })).statusCode).toBe(401);
    expect(await countPasskeys(t.db, member.id)).toBe(before + 2);
  });

  it('refuses transports WebAuthn does not name (a NUL byte among them) with the usual answer, writing nothing and keeping the challenge', async () => {
    const user = await makeUser(t.db);
    const own = await t.logIn(user);
    const options = await json('/settings/security/passkeys/options', { csrf_token: own.csrfToken }, own.cookie);
    const response = new SoftwareAuthenticator(ORIGIN).create((options.json() as { options: PublicKeyCredentialCreationOptionsJSON }).options);
    const challenges = async () => (await t.db.selectFrom('webauthn_challenges').select('user_id').where('user_id', '=', user.id).execute()).length;
    const mails = async () => (await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email).execute()).length;
    const withTransports = (transports: string[]) => ({ ...response, response: { ...response.response, transports } });
    for (const transports of [['usb\u0000'], ['internal', 'bluetooth'], ['USB'], ['']]) {
      const refused = await json('/settings/security/passkeys', { csrf_token: own.csrfToken, name: 'Key', response: withTransports(transports) }, own.cookie);
      expect(refused.statusCode, JSON.stringify(transports)).toBe(400);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(refused.json()).toEqual({ error: 'The passkey could not be added. Please try again.' });
    }
    expect(await countPasskeys(t.db, user.id)).toBe(0);
    expect(await mails()).toBe(0);
    expect(await challenges()).toBe(1);
    // The same response (transports are not signed) with the values WebAuthn names: its challenge was kept.
    const added = await json('/settings/security/passkeys', { csrf_token: own.csrfToken, name: 'Key', response: withTransports(['usb', 'nfc', 'hybrid', 'smart-card']) }, own.cookie);
    expect(added.statusCode).toBe(201);
    expect((await passkeyRow(user.id)).transports).toEqual(['usb', 'nfc', 'hybrid', 'smart-card']);
    expect(await challenges()).toBe(0);
  });
});

describe('signing in with a passkey', () => {
  it('starts a session with amr hwk, user, mfa and answers where to go', async () => {
    const { answer } = await signIn(authenticator, {}, '/oauth/authorize?client_id=x');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ location: '/oauth/authorize?client_id=x' });
    const cookie = answer.cookies.find((c) => c.name === 'fs_session');
    expect(cookie?.httpOnly).toBe(true);
    const sessions = await t.db.selectFrom('sessions').select(['amr', 'sid']).where('user_id', '=', member.id).orderBy('created_at', 'desc').execute();
    expect(sessions[0]!.amr).toEqual(['hwk', 'user', 'mfa']);
    const row = await passkeyRow(member.id);
    expect(Number(row.sign_count)).toBe(1);
    expect(row.last_used_at).not.toBeNull();
    expect(events('account.passkey.login').at(-1)).toMatchObject({ userId: member.id, passkeyId: row.id, amr: ['hwk', 'user', 'mfa'] });
  });

  it('a synced passkey signs in with swk; one without user verification with swk alone', async () => {
    for (const [userVerified, amr] of [[true, ['swk', 'user', 'mfa']], [false, ['swk']]] as const) {
      const user = await makeUser(t.db);
      const synced = new SoftwareAuthenticator(ORIGIN, { synced: true, userVerified });
      expect((await register(await t.logIn(user), synced)).answer.statusCode).toBe(201);
      expect((await passkeyRow(user.id)).device_type).toBe('multiDevice');
      expect((await signIn(synced)).answer.statusCode).toBe(200);
      const [newest] = await t.db.selectFrom('sessions').select('amr').where('user_id', '=', user.id).orderBy('created_at', 'desc').execute();
      expect(newest!.amr).toEqual(amr);
    }
  });

  it('refuses a replayed assertion: the challenge is used once', async () => {
    const { response, csrf, cookie } = await signIn(authenticator);
    const again = await json('/login/passkey', { csrf_token: csrf, response }, cookie);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual(FAILED);
    expect(again.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
  });

  it('refuses a challenge after five minutes, and one issued to another browser', async () => {
    const { csrf, cookie, options } = await signInOptions();
    t.clock.advance(CHALLENGE_SECONDS + 1);
    expect((await json('/login/passkey', { csrf_token: csrf, response: authenticator.get(options) }, cookie)).statusCode).toBe(401);
    const first = await signInOptions();
    const second = await signInOptions();
    expect((await json('/login/passkey', { csrf_token: second.csrf, response: authenticator.get(first.options) }, second.cookie)).statusCode).toBe(401);
    // The challenge survived the attempt from the other browser: single use means used once, by its own browser.
    expect((await json('/login/passkey', { csrf_token: first.csrf, response: authenticator.get(first.options) }, first.cookie)).statusCode).toBe(200);
  });

  it('refuses another origin, another RP ID, a cross-origin frame, an unknown credential, a bad signature and another user handle with one answer', async () => {
    const refusals = [
      await signIn(authenticator, { origin: 'https://evil.example' }),
      await signIn(authenticator, { rpId: 'evil.example' }),
      await signIn(authenticator, { userHandle: Buffer.alloc(32, 1).toString('base64url') }),
      await signIn(authenticator, { topOrigin: 'https://evil.example' }),
    ];
    const { csrf, cookie, options } = await signInOptions();
    const stranger = new SoftwareAuthenticator(ORIGIN);
    stranger.create({ ...(await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie)).json().options });
    const unknown = await json('/login/passkey', { csrf_token: csrf, response: stranger.get(options) }, cookie);
    const tampered = await signInOptions();
    const good = authenticator.get(tampered.options);
    const badSignature = await json('/login/passkey', { csrf_token: tampered.csrf, response: { ...good, response: { ...good.response, signature: good.response.signature.slice(0, -4) + 'AAAA' } } }, tampered.cookie);
    for (const answer of [...refusals.map((r) => r.answer), unknown, badSignature]) {
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toEqual(FAILED);
    }
    const reasons = events('account.passkey.login_failed').slice(-6).map((e) => e.reason);
    expect(reasons).toEqual(['invalid-response', 'invalid-response', 'user-handle', 'invalid-response', 'unknown-credential', 'signature']);
  });

  it('refuses, with the same answer, a sign-in that named nobody without a user handle, and a changed BE flag (WebAuthn §7.2)', async () => {
    // Step 6: the options named no credential, so the response must say whose it is; backup eligibility never changes
    // for a credential (this one was registered single-device).
    for (const [overrides, reason] of [[{ userHandle: null }, 'user-handle'], [{ synced: true }, 'backup-eligibility']] as const) {
      const { csrf, cookie, options } = await signInOptions();
      const answer = await t.app.inject({
        method: 'POST', url: '/login/passkey', payload: { csrf_token: csrf, response: authenticator.get(options, undefined, overrides) },
        headers: { cookie, 'accept-language': 'en' }, remoteAddress: '198.51.100.31',
      });
      expect(answer.statusCode, reason).toBe(401);
      expect(answer.json()).toEqual(FAILED);
      expect(events('account.passkey.login_failed').at(-1)).toMatchObject({ reason });
    }
  });

  it('refuses a signature counter that did not move forward and logs it; the stored counter stays', async () => {
    const before = Number((await passkeyRow(member.id)).sign_count);
    expect(before).toBeGreaterThan(1);
    for (const counter of [before - 1, before]) {
      const { answer } = await signIn(authenticator, { counter });
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toEqual(FAILED);
      expect(events('account.passkey.counter_regressed').at(-1)).toMatchObject({ userId: member.id, storedCount: before, presentedCount: counter });
    }
    expect(Number((await passkeyRow(member.id)).sign_count)).toBe(before);
  });

  it('an authenticator without a counter (always 0) signs in again and again', async () => {
    const user = await makeUser(t.db);
    const noCounter = new SoftwareAuthenticator(ORIGIN, { counterStep: 0 });
    await register(await t.logIn(user), noCounter);
    for (let i = 0; i < 2; i += 1) expect((await signIn(noCounter)).answer.statusCode).toBe(200);
  });

  it('renews the browser\'s live session of the same member: same sid, new auth_time and amr', async () => {
    // A password-only session of a member who has a passkey now (a password login would ask for it as the second step).
    const started = await createSession(t.db, t.clock.now, member.id, false);
    const live = { cookie: `${SESSION_COOKIE}=${started.id}`, csrfToken: started.csrfToken };
    const before = await t.db.selectFrom('sessions').select(['sid', 'auth_time', 'amr']).where('csrf_token', '=', live.csrfToken).executeTakeFirstOrThrow();
    t.clock.advance(120);
    const answer = await json('/login/passkey/options', { csrf_token: live.csrfToken }, live.cookie);
    const response = authenticator.get((answer.json() as { options: PublicKeyCredentialRequestOptionsJSON }).options);
    const renewed = await json('/login/passkey', { csrf_token: live.csrfToken, response }, live.cookie);
    expect(renewed.statusCode).toBe(200);
    const newCsrf = renewed.cookies.find((c) => c.name === 'CSRF_TOKEN')!.value;
    const after = await t.db.selectFrom('sessions').select(['sid', 'auth_time', 'amr']).where('csrf_token', '=', newCsrf).executeTakeFirstOrThrow();
    expect(after.sid).toBe(before.sid);
    expect(after.auth_time.getTime()).toBeGreaterThanOrEqual(before.auth_time.getTime() + 120_000);
    expect(before.amr).toEqual(['pwd']);
    expect(after.amr).toEqual(['hwk', 'user', 'mfa']);
  });

  it('refuses a missing or wrong CSRF token before anything else', async () => {
    const { options, cookie } = await signInOptions();
    const answer = await json('/login/passkey', { csrf_token: 'wrong', response: authenticator.get(options) }, cookie);
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toEqual({ error: 'The form has expired. Please try again.' });
    expect((await json('/login/passkey/options', {}, cookie)).statusCode).toBe(403);
  });

  it('slows down failures from one client address like failed passwords', async () => {
    const stranger = new SoftwareAuthenticator(ORIGIN);
    stranger.create((await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie)).json().options);
    const attempt = async () => {
      const { csrf, cookie, options } = await signInOptions();
      return t.app.inject({ method: 'POST', url: '/login/passkey', payload: { csrf_token: csrf, response: stranger.get(options) }, headers: { cookie }, remoteAddress: '198.51.100.9' });
    };
    for (let i = 0; i < 10; i += 1) expect((await attempt()).statusCode).toBe(401);
    const refused = await attempt();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(events('account.login.locked').at(-1)).toMatchObject({ lockedBy: 'source', ip: '198.51.100.9' });
  });
});

describe('a disabled or deleted member', () => {
  const DISABLED = { error: 'This account is disabled. Please contact the organisation team.' };
  let writes: WriteLog;

  beforeAll(async () => {
    writes = await installWriteLog(t.db);
  });

  /** What a sign-in wrote, once its security events are stored. */
  async function written(): Promise<string[]> {
    await t.app.securityEvents.settled();
    return writes.take();
  }

  it('a disabled member is told so only after a valid assertion: no session, no login event, the passkey\'s use not recorded; enabled, they sign in again', async () => {
    const user = await makeUser(t.db);
    const key = new SoftwareAuthenticator(ORIGIN);
    expect((await register(await t.logIn(user), key)).answer.statusCode).toBe(201);
    expect(await disableMember(t.db, user.id, t.clock.now())).toMatchObject({ changed: true });
    const before = await passkeyRow(user.id);
    const logins = events('account.passkey.login').length;
    await written();

    const { answer } = await signIn(key);
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toEqual(DISABLED);
    expect(answer.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
    // The options' challenge, taken by the assertion; the attempt counted and the event stored, as for a disabled member's right password.
    expect(await written()).toEqual(['login_throttle', 'security_events', 'webauthn_challenges']);
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await passkeyRow(user.id)).toEqual(before);
    expect(events('account.passkey.login')).toHaveLength(logins);
    expect(events('account.login.disabled').at(-1)).toMatchObject({ userId: user.id, passkeyId: before.id, ip: '127.0.0.1' });
    expect(await t.db.selectFrom('security_events').select(['event', 'details']).where('user_id', '=', user.id).where('event', '=', 'account.login.disabled').execute())
      .toEqual([{ event: 'account.login.disabled', details: { passkeyId: before.id } }]);

    // A signature that does not verify learns nothing of the account.
    const tampered = await signInOptions();
    const good = key.get(tampered.options);
    const forged = await json('/login/passkey', { csrf_token: tampered.csrf, response: { ...good, response: { ...good.response, signature: good.response.signature.slice(0, -4) + 'AAAA' } } }, tampered.cookie);
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toEqual(FAILED);

    expect(await enableMember(t.db, user.id)).toMatchObject({ changed: true });
    const again = await signIn(key);
    expect(again.answer.statusCode).toBe(200);
    expect(await t.db.selectFrom('sessions').select('amr').where('user_id', '=', user.id).execute()).toEqual([{ amr: ['hwk', 'user', 'mfa'] }]);
    expect(events('account.passkey.login').at(-1)).toMatchObject({ userId: user.id, passkeyId: before.id });
  });

  it('a deleted member\'s passkey is gone with them: its sign-in is an unknown credential, and nothing is written for the member', async () => {
    const user = await makeUser(t.db);
    const key = new SoftwareAuthenticator(ORIGIN);
    expect((await register(await t.logIn(user), key)).answer.statusCode).toBe(201);
    const kept = await passkeyRow(user.id);
    expect(await deleteMember(t.db, user.id, t.clock.now())).toBeDefined();
    expect(await countPasskeys(t.db, user.id)).toBe(0);
    await written();

    const { answer } = await signIn(key);
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toEqual(FAILED);
    // The options' challenge, the failure counted and its event: none of them names the member.
    expect(await written()).toEqual(['login_throttle', 'security_events', 'webauthn_challenges']);
    expect(events('account.passkey.login_failed').at(-1)).toMatchObject({ reason: 'unknown-credential', userId: null });

    // A passkey that outlived its member's deletion (one made before deletions took passkeys) is no way back in.
    await t.db.insertInto('passkeys').values(kept).execute();
    await written();
    const left = await signIn(key);
    expect(left.answer.statusCode).toBe(401);
    expect(left.answer.json()).toEqual(FAILED);
    expect(await written()).toEqual(['login_throttle', 'security_events', 'webauthn_challenges']);
    expect(events('account.passkey.login_failed').at(-1)).toMatchObject({ reason: 'unknown-credential', userId: null });
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('security_events').select('event').where('user_id', '=', user.id).orderBy('id').execute()).toEqual([{ event: 'account.login.succeeded' }, { event: 'account.passkey.registered' }]);
  });
});

describe('renaming and removing', () => {
  const form = (path: string, fields: Record<string, string>, who: TestSession = session) => t.app.inject({
    method: 'POST', url: `/settings/security/passkeys/${path}`, payload: new URLSearchParams(fields).toString(),
    headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
  });

  it('renames the member\'s own passkey only', async () => {
    const row = await passkeyRow(member.id);
    const renamed = await form('rename', { csrf_token: session.csrfToken, id: String(row.id), name: '  Work laptop ' });
    expect(renamed.statusCode).toBe(303);
    expect(renamed.headers.location).toBe('/settings/security?passkey=renamed');
    expect((await passkeyRow(member.id)).name).toBe('Work laptop');
    const other = await t.logIn(await makeUser(t.db));
    expect((await form('rename', { csrf_token: other.csrfToken, id: String(row.id), name: 'mine' }, other)).statusCode).toBe(404);
    expect((await form('rename', { csrf_token: 'wrong', id: String(row.id), name: 'x' })).statusCode).toBe(403);
    expect((await passkeyRow(member.id)).name).toBe('Work laptop');
    // Cut after 100 characters, never inside one: an emoji is two UTF-16 code units.
    expect((await form('rename', { csrf_token: session.csrfToken, id: String(row.id), name: `${'a'.repeat(99)}😀b` })).statusCode).toBe(303);
    expect((await passkeyRow(member.id)).name).toBe(`${'a'.repeat(99)}😀`);
  });

  it('a name with half a surrogate pair (JSON escapes one) gives way to the browser\'s and system\'s name', async () => {
    const user = await makeUser(t.db);
    const own = await twoFactorSession(user.id);
    expect((await register(own, new SoftwareAuthenticator(ORIGIN), 'Key \ud83d')).answer.statusCode).toBe(201);
    expect((await passkeyRow(user.id)).name).not.toContain('\ufffd');
    expect((await passkeyRow(user.id)).name).not.toContain('Key');
  });

  it('refuses to remove the last passkey of an account without a usable password', async () => {
    const user = await makeUser(t.db);
    const own = await twoFactorSession(user.id);
    await register(own, new SoftwareAuthenticator(ORIGIN));
    await t.db.updateTable('users').set({ password_hash: '!' }).where('id', '=', user.id).execute();
    const row = await passkeyRow(user.id);
    const refused = await form('remove', { csrf_token: own.csrfToken, id: String(row.id) }, own);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('without a password, the last passkey cannot be removed');
    expect(await countPasskeys(t.db, user.id)).toBe(1);
  });

  it('removes a passkey: it signs in no more', async () => {
    const user = await makeUser(t.db);
    const own = await twoFactorSession(user.id);
    const key = new SoftwareAuthenticator(ORIGIN);
    await register(own, key);
    // The device is lost: whoever has it signed in with the passkey elsewhere.
    const thief = (await signIn(key)).answer;
    expect(thief.statusCode).toBe(200);
    const thiefCookie = thief.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const current = (cookie: string) => t.app.inject({ url: '/api/user/current', headers: { cookie } });
    expect((await current(thiefCookie)).statusCode).toBe(200);
    const row = await passkeyRow(user.id);
    const removed = await form('remove', { csrf_token: own.csrfToken, id: String(row.id) }, own);
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/settings/security?passkey=removed');
    expect(await countPasskeys(t.db, user.id)).toBe(0);
    expect(events('account.passkey.removed').at(-1)).toMatchObject({ userId: user.id, passkeyId: row.id, sessionsEnded: 1, grantsRevoked: 0 });
    // Every other session ended with it; the one that removed it goes on.
    expect((await current(thiefCookie)).statusCode).toBe(401);
    expect((await current(own.cookie)).statusCode).toBe(200);
    // The member hears of it, in the same transaction as the removal.
    const mails = async () => (await t.db.selectFrom('mail_outbox').select(['kind', 'params']).where('recipient', '=', user.email).orderBy('id').execute());
    expect((await mails()).map((m) => m.kind)).toEqual(['passkey-added', 'passkey-removed']);
    expect((await signIn(key)).answer.statusCode).toBe(401);
    expect((await form('remove', { csrf_token: own.csrfToken, id: String(row.id) }, own)).statusCode).toBe(404);
    expect(await mails()).toHaveLength(2);
  });

  it('deletePasskeysOfUser removes them all (an operator\'s reset of the second factor)', async () => {
    const user = await makeUser(t.db);
    const own = await twoFactorSession(user.id);
    await register(own, new SoftwareAuthenticator(ORIGIN), 'one');
    await register(own, new SoftwareAuthenticator(ORIGIN), 'two');
    expect(await countPasskeys(t.db, user.id)).toBe(2);
    expect(await deletePasskeysOfUser(t.db, user.id)).toBe(2);
    expect(await countPasskeys(t.db, user.id)).toBe(0);
  });
});

describe('the scripts', () => {
  it('are served as JavaScript with @simplewebauthn/browser first, cacheable, under a policy of same-origin scripts only', async () => {
    for (const name of ['passkey-login.js', 'passkey-settings.js']) {
      const answer = await t.app.inject({ url: `/static/${name}` });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('public, max-age=3600');
      expect(answer.body.startsWith('/* [@simplewebauthn/browser@')).toBe(true);
    }
    const login = await t.app.inject({ url: '/login' });
    expect(login.headers['content-security-policy']).toContain("script-src 'self'");
    expect(login.headers['content-security-policy']).toContain("script-src-attr 'none'");
    expect(login.body).toContain('<script src="/static/passkey-login.js" defer></script>');
    expect(login.body).toContain('autocomplete="username webauthn"');
    expect(login.body).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });
});

describe.runIf(TEST_DATABASE_URL)('a passkey removed while a sign-in with it is verified (PostgreSQL)', () => {
  it('the sign-in waits for the removal, then is an unknown credential: not logged as a cloned authenticator', async () => {
    const user = await makeUser(t.db);
    const own = new SoftwareAuthenticator(ORIGIN);
    expect((await register(await t.logIn(user), own)).answer.statusCode).toBe(201);
    const passkey = await passkeyRow(user.id);
    const regressedBefore = events('account.passkey.counter_regressed').length;
    let signedIn: ReturnType<typeof signIn> | undefined;
    await t.db.transaction().execute(async (removal) => {
      await sql`select id from passkeys where id = ${passkey.id} for update`.execute(removal);
      signedIn = signIn(own);
      await untilWaitingOn(t.db, await backendPid(removal), signedIn);
      await removal.deleteFrom('passkeys').where('id', '=', passkey.id).execute();
    });
    const { answer } = await signedIn!;
    expect({ status: answer.statusCode, body: answer.json() as unknown }).toEqual({ status: 401, body: FAILED });
    expect(events('account.passkey.counter_regressed')).toHaveLength(regressedBefore);
    expect(events('account.passkey.login_failed').at(-1)).toMatchObject({ reason: 'unknown-credential', userId: user.id, passkeyId: passkey.id });
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).execute()).toHaveLength(1);
  });
});

describe.runIf(TEST_DATABASE_URL)('a passkey removed between a sign-in\'s verification and its session (PostgreSQL)', () => {
  it('the removal comes first: the sign-in begins no session, and the removing session stays', async () => {
    const user = await makeUser(t.db);
    const own = new SoftwareAuthenticator(ORIGIN);
    const remover = await twoFactorSession(user.id);
    expect((await register(remover, own)).answer.statusCode).toBe(201);
    const passkey = await passkeyRow(user.id);
    const remove = async () => {
      const answer = await t.app.inject({
        method: 'POST', url: '/settings/security/passkeys/remove', payload: new URLSearchParams({ csrf_token: remover.csrfToken, id: String(passkey.id) }).toString(),
        headers: { cookie: remover.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (answer.statusCode !== 303) throw new Error(`${answer.statusCode}`);
    };
    let signedIn: ReturnType<typeof signIn> | undefined;
    // The sign-in held as it records the passkey's use (the row locked); the removal, which holds the member's row
    // first, waits for that row; then the sign-in goes on to begin its session, and waits for the removal.
    expect(await gatedBeforeUpdateOf(t.db, 'passkeys', async () => { signedIn = signIn(own); await signedIn; }, remove)).toEqual(['done', 'done']);
    const { answer } = await signedIn!;
    expect({ status: answer.statusCode, body: answer.json() as unknown }).toEqual({ status: 401, body: FAILED });
    expect(events('account.passkey.login_failed').at(-1)).toMatchObject({ reason: 'unknown-credential', userId: user.id, passkeyId: passkey.id });
    expect(await countPasskeys(t.db, user.id)).toBe(0);
    const sessions = await t.db.selectFrom('sessions').select('csrf_token').where('user_id', '=', user.id).execute();
    expect(sessions).toEqual([{ csrf_token: remover.csrfToken }]);
  });
});

describe.runIf(TEST_DATABASE_URL)('a passkey added while its session is ended (PostgreSQL)', () => {
  it('the session ends first ("end sessions", a reset): nothing is added, and the page is told to sign in again', async () => {
    const user = await makeUser(t.db);
    const session = await t.logIn(user);
    const options = await json('/settings/security/passkeys/options', { csrf_token: session.csrfToken }, session.cookie);
    const response = new SoftwareAuthenticator(ORIGIN).create((options.json() as { options: PublicKeyCredentialCreationOptionsJSON }).options);
    let added: ReturnType<typeof json> | undefined;
    // The end under way: the member's row held, the sessions deleted, not yet committed; the request read its session before.
    await t.db.transaction().execute(async (ending) => {
      await ending.selectFrom('users').select('id').where('id', '=', user.id).forNoKeyUpdate().execute();
      await ending.deleteFrom('sessions').where('user_id', '=', user.id).execute();
      added = json('/settings/security/passkeys', { csrf_token: session.csrfToken, name: 'Late', response }, session.cookie);
      await untilWaitingOn(t.db, await backendPid(ending), added);
    });
    const answer = await added!;
    expect({ status: answer.statusCode, body: answer.json() as unknown }).toEqual({ status: 401, body: { error: 'This sign-in was ended. Log in again to add a passkey.' } });
    expect(await countPasskeys(t.db, user.id)).toBe(0);
    expect(await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email).execute()).toEqual([]);
  });
});

describe('metrics', () => {
  it('count the passkey events by name, and failed or throttled passkey sign-ins as failed logins', async () => {
    const text = (await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
    const sample = (series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1) ?? 0);
    for (const name of ['account.passkey.registered', 'account.passkey.removed', 'account.passkey.login', 'account.passkey.login_failed', 'account.passkey.counter_regressed']) {
      expect(sample(`security_events_total{event="${name}"}`)).toBe(events(name).length);
    }
    expect(sample('login_failures_total{route="/login/passkey"}')).toBe(events('account.passkey.login_failed').length);
    expect(sample('login_throttled_total{route="/login/passkey"}')).toBe(1);
  });
});
