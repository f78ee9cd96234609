/**
 * Changing how one signs in needs a recent sign-in (accounts/recent-sign-in.ts):
 * 15 minutes after it, adding or removing a passkey and turning one-time codes
 * on are refused and the page offers to sign in again, which renews the same
 * session. Once the member has a second factor, it also needs a sign-in with
 * two factors (NIST SP 800-63B §6.1.2.1). Real database, app.inject().
 */
import { describe, expect, it } from 'vitest';
import { RECENT_SIGN_IN_SECONDS } from '../../src/accounts/recent-sign-in.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { codeAt, enrol, postForm } from '../helpers/one-time-codes.ts';
import { renewedSession, sessionSignedInWith, type TestSession } from '../helpers/session.ts';

const clock = new FrozenClock(new Date('2026-03-02T09:00:10Z'));
const t = useTestApp({ clock });

const SIGN_IN_AGAIN = '<a href="/login?return_to=%2Fsettings%2Fsecurity">Sign in again</a>';
const TOO_LONG_AGO = 'You signed in too long ago to change this. Please sign in again.';
const SECOND_FACTOR_NEEDED = 'To change this, please sign in again with your second factor: with your password and a one-time code or passkey, or with a passkey that asks for your PIN or fingerprint.';

function page(session: TestSession) {
  return t.app.inject({ url: '/settings/security', headers: { cookie: session.cookie, 'accept-language': 'en' } });
}

function json(url: string, session: TestSession, body: object) {
  return t.app.inject({ method: 'POST', url, payload: body, headers: { cookie: session.cookie, 'accept-language': 'en' } });
}

async function addPasskeyRow(member: TestUser): Promise<number> {
  const { id } = await t.db.insertInto('passkeys').values({
    user_id: member.id, credential_id: `recent-${member.id}`, public_key: Buffer.from([1]), device_type: 'multiDevice', backed_up: true, name: 'Phone',
  }).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** A member with a passkey, signed in just now with it (a passkey that verified them: two factors). */
async function memberWithPasskey(): Promise<{ member: TestUser; session: TestSession; passkeyId: number }> {
  const member = await makeUser(t.db);
  const passkeyId = await addPasskeyRow(member);
  const session = await sessionSignedInWith(t.db, t.clock.now, member.id, ['hwk', 'user', 'mfa']);
  return { member, session, passkeyId };
}

/** Signs in again through the login page in the same browser (its session cookie sent along). */
async function signInAgain(session: TestSession, member: TestUser): Promise<TestSession> {
  const login = await t.app.inject({ url: '/login?return_to=%2Fsettings%2Fsecurity', headers: { cookie: session.cookie } });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(login.body)![1]!;
  const answer = await postForm(t.app, '/login', session.cookie, { csrf_token: csrf, email: member.email, password: member.password, return_to: '/settings/security' });
  expect(answer.statusCode).toBe(303);
  expect(answer.headers.location).toBe('/settings/security');
  return renewedSession(session, answer);
}

/** Every way to change a factor, as the session would try it: each refused with `message`, nothing written. */
async function expectRefused(member: TestUser, session: TestSession, passkeyId: number, message: string) {
  const challenges = () => t.db.selectFrom('webauthn_challenges').select('challenge_digest').where('purpose', '=', 'registration').where('user_id', '=', member.id).execute();
  const challengesBefore = await challenges();
  const shown = await page(session);
  expect(shown.body).toContain(SIGN_IN_AGAIN);
  expect(shown.body).not.toContain('data-passkey-register');
  expect(shown.body).not.toContain('action="/settings/security/passkeys/remove"');
  expect(shown.body).not.toContain('action="/settings/security/one-time-codes/start"');
  // Renaming changes no way in: still offered.
  expect(shown.body).toContain('action="/settings/security/passkeys/rename"');
  const options = await json('/settings/security/passkeys/options', session, { csrf_token: session.csrfToken });
  expect(options.statusCode).toBe(403);
  expect(options.json()).toEqual({ error: message, location: '/login?return_to=%2Fsettings%2Fsecurity' });
  const added = await json('/settings/security/passkeys', session, { csrf_token: session.csrfToken, response: { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'x', attestationObject: 'x' }, clientExtensionResults: {} } });
  expect(added.statusCode).toBe(403);
  const removed = await t.app.inject({
    method: 'POST', url: '/settings/security/passkeys/remove', payload: new URLSearchParams({ csrf_token: session.csrfToken, id: String(passkeyId) }).toString(),
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
  });
  expect(removed.statusCode).toBe(403);
  expect(removed.body).toContain(message);
  expect(removed.body).toContain(SIGN_IN_AGAIN);
  const started = await t.app.inject({
    method: 'POST', url: '/settings/security/one-time-codes/start', payload: new URLSearchParams({ csrf_token: session.csrfToken }).toString(),
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
  });
  expect(started.statusCode).toBe(403);
  expect(started.body).toContain(message);
  expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', member.id).execute()).toEqual([{ id: passkeyId }]);
  expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
  expect(await challenges()).toEqual(challengesBefore);
}

describe('changing the factors needs a recent sign-in', () => {
  it('within 15 minutes of the sign-in: the forms are there and the changes go through', async () => {
    const { member, session } = await memberWithPasskey();
    clock.advance(RECENT_SIGN_IN_SECONDS);
    const shown = await page(session);
    expect(shown.body).toContain('data-passkey-register');
    expect(shown.body).toContain('action="/settings/security/passkeys/remove"');
    expect(shown.body).toContain('action="/settings/security/one-time-codes/start"');
    expect(shown.body).not.toContain(SIGN_IN_AGAIN);
    expect((await json('/settings/security/passkeys/options', session, { csrf_token: session.csrfToken })).statusCode).toBe(200);
    expect((await postForm(t.app, '/settings/security/one-time-codes/start', session.cookie, { csrf_token: session.csrfToken })).statusCode).toBe(303);
    expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', member.id).execute()).toHaveLength(1);
  });

  it('later: refused with nothing written, and the page offers to sign in again', async () => {
    const { member, session, passkeyId } = await memberWithPasskey();
    clock.advance(RECENT_SIGN_IN_SECONDS + 1);
    await expectRefused(member, session, passkeyId, TOO_LONG_AGO);
  });

  it('signing in again renews the same session (same sid, new auth_time) and allows them', async () => {
    const member = await makeUser(t.db);
    const session = await t.logIn(member);
    const [before] = await t.db.selectFrom('sessions').select(['sid', 'auth_time']).where('user_id', '=', member.id).execute();
    clock.advance(RECENT_SIGN_IN_SECONDS + 1);
    expect((await json('/settings/security/passkeys/options', session, { csrf_token: session.csrfToken })).statusCode).toBe(403);

    const again = await signInAgain(session, member);
    const [after] = await t.db.selectFrom('sessions').select(['sid', 'auth_time']).where('user_id', '=', member.id).execute();
    expect(after!.sid).toBe(before!.sid);
    expect(after!.auth_time.getTime()).toBe(clock.now().getTime());
    expect((await page(again)).body).toContain('data-passkey-register');
    expect((await json('/settings/security/passkeys/options', again, { csrf_token: again.csrfToken })).statusCode).toBe(200);
  });
});

describe('turning one-time codes off', () => {
  it('needs a recent sign-in too: later, refused before the code is spent; the codes stay on', async () => {
    const member = await makeUser(t.db);
    const { secret, session } = await enrol(t.app, await t.logIn(member), clock.now());
    const stored = () => t.db.selectFrom('one_time_code_secrets').select('last_used_step').where('user_id', '=', member.id).where('enabled_at', 'is not', null).execute();
    const before = await stored();
    expect(before).toHaveLength(1);
    expect((await page(session)).body).toContain('action="/settings/security/one-time-codes/disable"');
    clock.advance(RECENT_SIGN_IN_SECONDS + 1);
    // The page offers to sign in again in place of the form that would be refused; new recovery codes stay offered.
    const later = (await page(session)).body;
    expect(later).not.toContain('action="/settings/security/one-time-codes/disable"');
    expect(later).toContain('action="/settings/security/one-time-codes/recovery-codes"');
    const otpSection = later.slice(later.indexOf('id="one-time-codes"'));
    expect(otpSection.slice(0, otpSection.indexOf('</section>'))).toMatch(/<p class="notice">[^<]*<a href="\/login\?return_to=%2Fsettings%2Fsecurity">Sign in again<\/a><\/p>/);
    const code = codeAt(secret, clock.now());
    const refused = await postForm(t.app, '/settings/security/one-time-codes/disable', session.cookie, { csrf_token: session.csrfToken, code });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Deine Anmeldung liegt zu lange zurück, um das zu ändern. Bitte melde dich noch einmal an.');
    // Still on, and the code not spent: its time step is not the last one used.
    expect(await stored()).toEqual(before);
  });
});

describe('once the member has a second factor, changing the factors needs a sign-in with two', () => {
  it('a session signed in just now with a security key that verified nobody (one factor) changes nothing', async () => {
    const member = await makeUser(t.db);
    const passkeyId = await addPasskeyRow(member);
    const session = await sessionSignedInWith(t.db, t.clock.now, member.id, ['hwk']);
    await expectRefused(member, session, passkeyId, SECOND_FACTOR_NEEDED);
  });

  it('nor does one signed in just now with the password alone, before the passkey was added elsewhere', async () => {
    const member = await makeUser(t.db);
    const session = await t.logIn(member);
    const passkeyId = await addPasskeyRow(member);
    await expectRefused(member, session, passkeyId, SECOND_FACTOR_NEEDED);
  });

  it('a member without one adds the first with the password\'s sign-in; too long after it, the page says so first', async () => {
    const member = await makeUser(t.db);
    const session = await t.logIn(member);
    expect((await json('/settings/security/passkeys/options', session, { csrf_token: session.csrfToken })).statusCode).toBe(200);
    clock.advance(RECENT_SIGN_IN_SECONDS + 1);
    const passkeyId = await addPasskeyRow(member);
    await expectRefused(member, session, passkeyId, TOO_LONG_AGO);
  });
});
