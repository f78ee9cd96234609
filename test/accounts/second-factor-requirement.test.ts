/**
 * REQUIRE_SECOND_FACTOR: an organisation member without a second factor is
 * signed in but reaches only /settings/security (and logout) until they have
 * one — pages redirect there with `return_to`, /api answers 403 with a
 * problem — and then continues where they were going. Other roles are not
 * held. Real database, app.inject().
 */
import { describe, expect, it } from 'vitest';
import { REQUIRED_ROLE_IDLE_SECONDS } from '../../src/accounts/second-factor-requirement.ts';
import { SESSION_COOKIE } from '../../src/accounts/session-http.ts';
import { createSession } from '../../src/accounts/sessions.ts';
import { loadConfig } from '../../src/config.ts';
import { makeUser } from '../helpers/factories.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { renewedSession } from '../helpers/session.ts';
import { codeAt, enrol, postForm, startEnrolment } from '../helpers/one-time-codes.ts';
import { CALLBACK, makeClient } from '../helpers/oauth.ts';

const clock = new FrozenClock(new Date('2026-03-02T09:00:10Z'));
const t = useTestApp({ clock, env: { REQUIRE_SECOND_FACTOR: 'orga' } });

describe('REQUIRE_SECOND_FACTOR', () => {
  it('is parsed from role names: none, a list, orga by default in production, none elsewhere; unknown names refused', () => {
    const base = { PUBLIC_URL: 'http://localhost:8080' };
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).requireSecondFactor).toEqual([]);
    expect(loadConfig({ ...base, NODE_ENV: 'test', REQUIRE_SECOND_FACTOR: 'ambassador, orga' }).requireSecondFactor).toEqual([3, 4]);
    expect(loadConfig({ ...base, NODE_ENV: 'test', REQUIRE_SECOND_FACTOR: 'none' }).requireSecondFactor).toEqual([]);
    expect(loadConfig({
      PUBLIC_URL: 'https://id.example', NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', MAIL: 'off',
    }).requireSecondFactor).toEqual([4]);
    expect(() => loadConfig({ ...base, NODE_ENV: 'test', REQUIRE_SECOND_FACTOR: 'orga,admin' }))
      .toThrow('REQUIRE_SECOND_FACTOR must be none or role names separated by commas (foodsharer, foodsaver, store-manager, ambassador, orga); unknown: admin');
  });

  it('holds an orga member without a second factor at /settings/security until enrolled, then lets them continue', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    const session = await t.logIn(orga);
    const admin = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: session.cookie } });
    expect(admin.statusCode).toBe(303);
    expect(admin.headers.location).toBe('/settings/security?return_to=%2Fadmin%2Foauthclients#one-time-codes');
    const consent = await t.app.inject({ url: '/oauth/authorize?client_id=x', headers: { cookie: session.cookie } });
    expect(consent.statusCode).toBe(303);
    expect(consent.headers.location).toMatch(/^\/settings\/security\?return_to=%2Foauth%2Fauthorize/);
    const api = await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } });
    expect(api.statusCode).toBe(403);
    expect(api.headers['content-type']).toContain('application/problem+json');
    expect(api.json()).toMatchObject({
      status: 403, code: 'auth.second-factor-enrolment-required',
      detail: 'Your role requires a second factor (a passkey or one-time codes). Set one up at http://localhost:8080/settings/security first.',
    });

    const page = await t.app.inject({ url: '/settings/security?return_to=%2Fadmin%2Foauthclients', headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Deine Rolle verlangt einen zweiten Faktor.');
    expect(page.body).toContain('<input type="hidden" name="return_to" value="/admin/oauthclients">');
    const started = await postForm(t.app, '/settings/security/one-time-codes/start', session.cookie, { csrf_token: session.csrfToken, return_to: '/admin/oauthclients' });
    expect(started.headers.location).toBe('/settings/security?return_to=%2Fadmin%2Foauthclients#one-time-codes');
    const secret = await startEnrolment(t.app, session);
    const confirmed = await postForm(t.app, '/settings/security/one-time-codes/confirm', session.cookie, {
      csrf_token: session.csrfToken, code: codeAt(secret, clock.now()), return_to: '/admin/oauthclients',
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain('<a href="/admin/oauthclients">Weiter</a>');
    // The enrolment's code was the session's second factor: it goes on under a new id, with no second step.
    const renewed = renewedSession(session, confirmed);
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: renewed.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: renewed.cookie } })).statusCode).toBe(200);
  });

  it('lets the held member log out; holds no one of another role', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    const session = await t.logIn(orga);
    expect((await t.app.inject({ url: '/logout', headers: { cookie: session.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers })).statusCode).toBe(204);
    const member = await t.logIn(await makeUser(t.db, { role: 'ambassador' }));
    expect((await t.app.inject({ url: '/settings/apps', headers: { cookie: member.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: member.cookie } })).statusCode).toBe(200);
  });
});

describe('REQUIRE_SECOND_FACTOR: a session signed in without the factor the member has', () => {
  it('is asked for it first (the step-up), pages and /api alike; with it, the member goes on', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    // Two browsers signed in with the password; codes are then turned on in the first.
    const first = await t.logIn(orga);
    const second = await t.logIn(orga);
    const secret = await startEnrolment(t.app, first);
    const confirmed = await postForm(t.app, '/settings/security/one-time-codes/confirm', first.cookie, { csrf_token: first.csrfToken, code: codeAt(secret, clock.now()) });
    expect(confirmed.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: renewedSession(first, confirmed).cookie } })).statusCode).toBe(200);

    const admin = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: second.cookie } });
    expect(admin.statusCode).toBe(303);
    expect(admin.headers.location).toBe('/login/second-factor?return_to=%2Fadmin%2Foauthclients');
    const api = await t.app.inject({ url: '/api/user/current', headers: { cookie: second.cookie } });
    expect(api.statusCode).toBe(403);
    expect(api.json()).toMatchObject({
      status: 403, code: 'auth.second-factor-required',
      detail: 'Your role requires signing in with your second factor (a passkey or a one-time code). Log in again at http://localhost:8080/login.',
    });
    // Not even its own settings: a factor it set up itself would prove nothing of a member who has one.
    const settings = await t.app.inject({ url: '/settings/security', headers: { cookie: second.cookie } });
    expect(settings.headers.location).toBe('/login/second-factor?return_to=%2Fsettings%2Fsecurity');
    const start = await postForm(t.app, '/settings/security/one-time-codes/start', second.cookie, { csrf_token: second.csrfToken });
    expect(start.statusCode).toBe(303);
    expect(start.headers.location).toBe('/login/second-factor');

    clock.advance(30);
    const stepped = await postForm(t.app, '/login/second-factor', second.cookie, { csrf_token: second.csrfToken, code: codeAt(secret, clock.now()), return_to: '/admin/oauthclients' });
    expect(stepped.statusCode).toBe(303);
    expect(stepped.headers.location).toBe('/admin/oauthclients');
    const after = renewedSession(second, stepped);
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: after.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: after.cookie } })).statusCode).toBe(200);
  });

  it('a member who has a passkey turns codes on only in a two-factor session, whose methods then stay as they were', async () => {
    const member = await makeUser(t.db);
    await t.db.insertInto('passkeys').values({
      user_id: member.id, credential_id: `first-${member.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    // Signed in with a passkey that verified nobody (one factor): codes of its own would make two of one.
    const oneFactor = await createSession(t.db, clock.now, member.id, false, undefined, undefined, ['hwk']);
    const refused = await postForm(t.app, '/settings/security/one-time-codes/start', `${SESSION_COOKIE}=${oneFactor.id}`, { csrf_token: oneFactor.csrfToken });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Um das zu ändern, melde dich bitte noch einmal mit deinem zweiten Faktor an');
    expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);

    // Signed in with a passkey that verified its member: codes go on; the session proves nothing new with them.
    const created = await createSession(t.db, clock.now, member.id, false, undefined, undefined, ['hwk', 'user', 'mfa']);
    const cookie = `${SESSION_COOKIE}=${created.id}`;
    const session = { cookie, csrfToken: created.csrfToken, headers: {} };
    const secret = await startEnrolment(t.app, session);
    const confirmed = await postForm(t.app, '/settings/security/one-time-codes/confirm', cookie, { csrf_token: created.csrfToken, code: codeAt(secret, clock.now()) });
    expect(confirmed.statusCode).toBe(200);
    const renewed = renewedSession(session, confirmed);
    const amr = await t.db.selectFrom('sessions').select('amr').where('csrf_token', '=', renewed.csrfToken).executeTakeFirstOrThrow();
    expect(amr.amr).toEqual(['hwk', 'user', 'mfa']);
  });

  it('a passkey that did not verify its user is one factor; one that did is two', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    await t.db.insertInto('passkeys').values({
      user_id: orga.id, credential_id: `uv-${orga.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    const withoutVerification = await createSession(t.db, clock.now, orga.id, false, undefined, undefined, ['hwk']);
    const withVerification = await createSession(t.db, clock.now, orga.id, false, undefined, undefined, ['hwk', 'user', 'mfa']);
    const admin = (id: string) => t.app.inject({ url: '/admin/oauthclients', headers: { cookie: `${SESSION_COOKIE}=${id}` } });
    expect((await admin(withoutVerification.id)).headers.location).toBe('/login/second-factor?return_to=%2Fadmin%2Foauthclients');
    expect((await admin(withVerification.id)).statusCode).toBe(200);
  });
});

describe('REQUIRE_SECOND_FACTOR: a member of such a role keeps a second factor', () => {
  it('turning codes off or removing the last passkey is refused until another factor is there; nothing changed, no code spent', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    const created = await createSession(t.db, clock.now, orga.id, false, undefined, undefined, ['pwd', 'otp', 'mfa']);
    const { secret, session } = await enrol(t.app, { cookie: `${SESSION_COOKIE}=${created.id}`, csrfToken: created.csrfToken, headers: {} }, clock.now());
    clock.advance(30);
    const turnOff = () => postForm(t.app, '/settings/security/one-time-codes/disable', session.cookie, { csrf_token: session.csrfToken, code: codeAt(secret, clock.now()) });
    const refused = await turnOff();
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('Deine Rolle braucht einen zweiten Faktor: Richte zuerst einen Passkey ein, dann kannst du die Einmalcodes abschalten.');
    const enabled = () => t.db.selectFrom('one_time_code_secrets').select('enabled_at').where('user_id', '=', orga.id).where('enabled_at', 'is not', null).execute();
    expect(await enabled()).toHaveLength(1);

    // With a passkey beside them, codes go off (the same code: the refusal spent none); the passkey is then the last factor.
    const { id: passkeyId } = await t.db.insertInto('passkeys').values({
      user_id: orga.id, credential_id: `kept-${orga.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).returning('id').executeTakeFirstOrThrow();
    const off = await turnOff();
    expect([off.statusCode, off.headers.location]).toEqual([303, '/settings/security?otp=off']);
    expect(await enabled()).toEqual([]);
    const removed = await postForm(t.app, '/settings/security/passkeys/remove', session.cookie, { csrf_token: session.csrfToken, id: String(passkeyId) });
    expect(removed.statusCode).toBe(409);
    expect(removed.body).toContain('Deine Rolle braucht einen zweiten Faktor, und das ist dein letzter: Richte zuerst Einmalcodes oder einen weiteren Passkey ein.');
    expect(await t.db.selectFrom('passkeys').select('id').where('user_id', '=', orga.id).execute()).toEqual([{ id: passkeyId }]);
  });
});

describe('REQUIRE_SECOND_FACTOR: the sessions of such a role end sooner (NIST SP 800-63B §4.2.3)', () => {
  /** An orga member's session that signed in with two factors ("stay logged in": the limits hold all the same). */
  async function orgaSession() {
    const orga = await makeUser(t.db, { role: 'orga' });
    const session = await createSession(t.db, clock.now, orga.id, true, undefined, undefined, ['pwd', 'otp', 'mfa']);
    return { orga, cookie: `${SESSION_COOKIE}=${session.id}` };
  }
  const sessionsOf = async (userId: number) => (await t.db.selectFrom('sessions').select('sid').where('user_id', '=', userId).execute()).length;

  it('after 25 to 30 minutes unused: ended, pages send to the login page, /api answers as without a session', async () => {
    const { orga, cookie } = await orgaSession();
    clock.advance(REQUIRED_ROLE_IDLE_SECONDS);
    // Used at the limit: still live, and the use is recorded.
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie } })).statusCode).toBe(200);
    clock.advance(REQUIRED_ROLE_IDLE_SECONDS);
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie } })).statusCode).toBe(200);
    clock.advance(REQUIRED_ROLE_IDLE_SECONDS + 1);
    const admin = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie } });
    expect(admin.statusCode).toBe(303);
    expect(admin.headers.location).toBe('/login?return_to=%2Fadmin%2Foauthclients');
    expect(await sessionsOf(orga.id)).toBe(0);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie } })).statusCode).toBe(401);
  });

  it('past its time, the login pages end it too: neither a visit there nor a code at the step-up keeps it alive', async () => {
    const { orga, cookie } = await orgaSession();
    clock.advance(3 * 3600);
    const login = await t.app.inject({ url: '/login', headers: { cookie } });
    expect(login.statusCode).toBe(200);
    expect(await sessionsOf(orga.id)).toBe(0);
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie } })).headers.location).toBe('/login?return_to=%2Fadmin%2Foauthclients');

    // A member with codes, 13 hours after signing in, at the step-up with a right code: no session comes back.
    const member = await makeUser(t.db, { role: 'orga' });
    const first = await t.logIn(member);
    const secret = await startEnrolment(t.app, first);
    const confirmed = await postForm(t.app, '/settings/security/one-time-codes/confirm', first.cookie, { csrf_token: first.csrfToken, code: codeAt(secret, clock.now()) });
    const renewed = renewedSession(first, confirmed);
    // Signed in 13 hours ago, used a minute ago.
    await t.db.updateTable('sessions').set({ auth_time: new Date(clock.now().getTime() - 13 * 3600 * 1000) }).where('user_id', '=', member.id).execute();
    clock.advance(60);
    const stepped = await postForm(t.app, '/login/second-factor', renewed.cookie, { csrf_token: renewed.csrfToken, code: codeAt(secret, clock.now()) });
    expect(stepped.statusCode).toBe(303);
    expect(stepped.headers.location).toBe('/login');
    expect(await sessionsOf(member.id)).toBe(0);
  });

  it('12 hours after the sign-in, however much it is used; /api ends it too', async () => {
    const { orga, cookie } = await orgaSession();
    for (let used = 0; used < 12 * 60; used += 20) {
      expect((await t.app.inject({ url: '/api/user/current', headers: { cookie } })).statusCode).toBe(200);
      clock.advance(20 * 60);
    }
    clock.advance(1);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie } })).statusCode).toBe(401);
    expect(await sessionsOf(orga.id)).toBe(0);
  });

  it('holds no other role: a foodsaver\'s "stay logged in" session unused for a week goes on', async () => {
    const member = await makeUser(t.db);
    const session = await createSession(t.db, clock.now, member.id, true);
    clock.advance(7 * 24 * 3600);
    expect((await t.app.inject({ url: '/settings/apps', headers: { cookie: `${SESSION_COOKIE}=${session.id}` } })).statusCode).toBe(200);
  });
});

describe('REQUIRE_SECOND_FACTOR: an app\'s silent authorization request (prompt=none, OpenID Connect Core §3.1.2.6)', () => {
  const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSW-cM1Y';
  async function authorize(cookie: string, prompt?: string) {
    const client = await makeClient(t);
    const query = new URLSearchParams({
      response_type: 'code', client_id: client.clientId, redirect_uri: CALLBACK, scope: 'openid', state: 'silent', code_challenge: CHALLENGE, code_challenge_method: 'S256',
      ...(prompt ? { prompt } : {}),
    });
    return t.app.inject({ url: `/oauth/authorize?${query.toString()}`, headers: { cookie } });
  }

  it('answers login_required at the redirect URI for a session the role may not use yet, shows no page and keeps the session', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    await t.db.insertInto('passkeys').values({
      user_id: orga.id, credential_id: `silent-${orga.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    const stepUp = await createSession(t.db, clock.now, orga.id, false);
    const unenrolled = await createSession(t.db, clock.now, (await makeUser(t.db, { role: 'orga' })).id, false);
    for (const session of [stepUp, unenrolled]) {
      const cookie = `${SESSION_COOKIE}=${session.id}`;
      const silent = await authorize(cookie, 'none');
      expect(silent.statusCode).toBe(303);
      const location = new URL(silent.headers.location!);
      expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
      expect(location.searchParams.get('error')).toBe('login_required');
      expect(location.searchParams.get('state')).toBe('silent');
      expect(await t.db.selectFrom('sessions').select('sid').where('csrf_token', '=', session.csrfToken).execute()).toHaveLength(1);
      // Not silent: the page that asks for the factor, as for any other page.
      const asked = await authorize(cookie);
      expect(asked.headers.location).toMatch(/^\/(login\/second-factor|settings\/security)\?return_to=%2Foauth%2Fauthorize%3F/);
    }
  });
});
