/**
 * /settings/security: a member sees where they are signed in — browser and
 * system from the User-Agent, the network shortened, when each session began
 * and was last used, this device marked — and ends one session or every other
 * one, as a logout would: the session's cookie stops working, the grants
 * issued under it are revoked, the apps it signed into are told. Real
 * database, app.inject().
 */
import { hash } from '@node-rs/argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import { setUserPassword } from '../../src/accounts/accounts.service.ts';
import { LAST_SEEN_RESOLUTION_SECONDS } from '../../src/accounts/sessions.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { renewedSession, type TestSession } from '../helpers/session.ts';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

const t = useTestApp();
let member: TestUser;

/** A login from a browser with this User-Agent and address. */
async function logInFrom(user: TestUser, userAgent: string, remoteAddress: string): Promise<TestSession & { sid: string }> {
  const response = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password }, headers: { 'user-agent': userAgent }, remoteAddress });
  expect(response.statusCode).toBe(200);
  const cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const csrfToken = (response.json() as { csrfToken: string }).csrfToken;
  const sessions = await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).orderBy('created_at', 'desc').orderBy('sid').execute();
  const newest = await t.db.selectFrom('sessions').select('sid').where('csrf_token', '=', csrfToken).executeTakeFirstOrThrow();
  expect(sessions.map((s) => s.sid)).toContain(newest.sid);
  return { cookie, csrfToken, headers: { cookie, 'x-csrf-token': csrfToken }, sid: newest.sid };
}

const page = (session: TestSession, language = 'de') => t.app.inject({ url: '/settings/security', headers: { cookie: session.cookie, 'accept-language': language } });
const isLive = async (session: TestSession) => (await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } })).statusCode === 200;
const sessionCount = async (userId: number) => (await t.db.selectFrom('sessions').select('sid').where('user_id', '=', userId).execute()).length;

function post(path: string, session: TestSession, form: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: `/settings/security/${path}`, payload: new URLSearchParams(form).toString(), headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' } });
}

beforeAll(async () => {
  member = await makeUser(t.db, { firstName: 'Mia' });
});

describe('/settings/security: sessions', () => {
  it('sends logged-out visitors to the login page and back', async () => {
    const response = await t.app.inject({ url: '/settings/security' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login?return_to=%2Fsettings%2Fsecurity');
  });

  it('lists each session with browser, system, network and times; this device marked and without an end button', async () => {
    const laptop = await logInFrom(member, FIREFOX, '203.0.113.7');
    t.clock.advance(60);
    const phone = await logInFrom(member, IPHONE, '2001:db8:1:2::9');
    const html = (await page(laptop)).body;
    expect(html).toContain('<th scope="row">Firefox 133 unter Windows 10 (Computer) <strong>Dieses Gerät</strong></th>');
    expect(html).toContain('<td>203.0.113.0/24</td>');
    expect(html).toContain('<th scope="row">Mobile Safari 17 unter iOS 17.5 (Smartphone)</th>');
    expect(html).toContain('<td>2001:db8:1::/48</td>');
    expect(html).toContain('aria-label="Anmeldung auf Mobile Safari 17 unter iOS 17.5 (Smartphone) beenden"');
    expect(html).toContain(`<input type="hidden" name="sid" value="${phone.sid}">`);
    expect(html).not.toContain(`<input type="hidden" name="sid" value="${laptop.sid}">`);
    expect(html).toContain('Alle anderen Anmeldungen beenden');
    const english = (await page(phone, 'en')).body;
    expect(english).toContain('<th scope="row">Mobile Safari 17 on iOS 17.5 (Phone) <strong>This device</strong></th>');
    expect(english).not.toContain('203.0.113.7');
  });

  it('records when a session was last used, at most every five minutes', async () => {
    const user = await makeUser(t.db);
    const session = await logInFrom(user, FIREFOX, '198.51.100.1');
    const lastSeen = async () => (await t.db.selectFrom('sessions').select('last_seen_at').where('sid', '=', session.sid).executeTakeFirstOrThrow()).last_seen_at;
    const started = await lastSeen();
    t.clock.advance(LAST_SEEN_RESOLUTION_SECONDS - 1);
    expect(await isLive(session)).toBe(true);
    expect(await lastSeen()).toEqual(started);
    t.clock.advance(1);
    expect(await isLive(session)).toBe(true);
    expect((await lastSeen()).getTime()).toBeGreaterThanOrEqual(started.getTime() + LAST_SEEN_RESOLUTION_SECONDS * 1000);
  });

  it('ends one session as a logout would: its cookie, its grants; another member\'s or an unknown session is 404', async () => {
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.2');
    const there = await logInFrom(user, IPHONE, '198.51.100.3');
    const client = await makeClient(t);
    const code = await obtainCode(t, { clientId: client.clientId, cookie: there.cookie, scope: 'openid' });
    const tokens = (await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret! })).json() as { refresh_token: string };

    const stranger = await logInFrom(member, FIREFOX, '198.51.100.4');
    for (const sid of [stranger.sid, 'no-such-session', '']) {
      expect((await post('sessions/end', here, { csrf_token: here.csrfToken, sid })).statusCode, sid).toBe(404);
    }
    expect(await isLive(stranger)).toBe(true);
    expect((await post('sessions/end', here, { csrf_token: 'forged', sid: there.sid })).statusCode).toBe(403);
    expect(await isLive(there)).toBe(true);

    const ended = await post('sessions/end', here, { csrf_token: here.csrfToken, sid: there.sid });
    expect(ended.statusCode).toBe(303);
    expect(ended.headers.location).toBe('/settings/security?ended=1');
    expect(await isLive(there)).toBe(false);
    expect(await isLive(here)).toBe(true);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.secret! });
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    const notice = await t.app.inject({ url: ended.headers.location as string, headers: { cookie: here.cookie } });
    expect(notice.body).toContain('<p class="notice" role="status">Eine Anmeldung beendet.</p>');
  });

  it('ends every other session, keeping this one', async () => {
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.5');
    const others = [await logInFrom(user, IPHONE, '198.51.100.6'), await logInFrom(user, FIREFOX, '198.51.100.7')];
    const ended = await post('sessions/end-others', here, { csrf_token: here.csrfToken });
    expect(ended.headers.location).toBe('/settings/security?ended=2');
    for (const other of others) expect(await isLive(other)).toBe(false);
    expect(await isLive(here)).toBe(true);
    expect(await sessionCount(user.id)).toBe(1);
    expect((await page(here)).body).toContain('Du bist nur auf diesem Gerät angemeldet.');
    expect((await post('sessions/end-others', here, { csrf_token: here.csrfToken })).statusCode).toBe(404);
  });

  it('ending this device\'s own session logs it out', async () => {
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.8');
    const ended = await post('sessions/end', here, { csrf_token: here.csrfToken, sid: here.sid });
    expect(ended.headers.location).toBe('/login');
    expect(await isLive(here)).toBe(false);
  });
});

describe('/settings/security: changing the password', () => {
  const change = (session: TestSession, current: string, next: string, csrf = session.csrfToken) =>
    post('password', session, { csrf_token: csrf, current_password: current, new_password: next });

  it('asks for the current password; a wrong one changes nothing and is counted like a failed login', async () => {
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.20');
    const hashBefore = (await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow()).password_hash;
    const wrong = await change(here, 'not my password', 'a brand new pass phrase');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('<p class="error" role="alert" tabindex="-1" autofocus>Bitte korrigiere die markierten Felder.</p>');
    expect(wrong.body).toContain('aria-invalid="true" aria-describedby="current_password-error"');
    expect(wrong.body).toContain('<p class="field-error" id="current_password-error">Das aktuelle Passwort ist falsch.</p>');
    // The form leaves checking to the server, whose messages stand beside the fields in the page's language.
    expect(wrong.body).toContain('<form method="post" action="/settings/security/password" novalidate>');
    // The answer's language switch leads to the security page (the form's address has no page of its own).
    expect(wrong.body).toContain('<a href="/language/en?return_to=%2Fsettings%2Fsecurity" lang="en" hreflang="en">English</a>');
    const switched = await t.app.inject({ url: '/language/en?return_to=%2Fsettings%2Fsecurity', headers: { cookie: here.cookie } });
    expect([switched.statusCode, switched.headers.location]).toEqual([303, '/settings/security']);
    expect((await t.app.inject({ url: '/settings/security', headers: { cookie: here.cookie } })).statusCode).toBe(200);
    expect(await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email).execute()).toEqual([]);
    expect((await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow()).password_hash).toBe(hashBefore);
    // This browser's device counter: 5 free failures, then a wait (as at /login).
    for (let i = 0; i < 4; i += 1) expect((await change(here, 'not my password', 'a brand new pass phrase')).statusCode).toBe(400);
    const throttled = await change(here, user.password, 'a brand new pass phrase');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('60');
    expect(throttled.body).toContain('Zu viele falsche Passwörter. Versuche es in einer Minute noch einmal.');
    expect((await change(here, user.password, 'a brand new pass phrase', 'forged')).statusCode).toBe(403);
  });

  it('an empty form: each field\'s message beside it, and no try counted', async () => {
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.22');
    for (let i = 0; i < 7; i += 1) {
      const empty = await change(here, '', '');
      expect(empty.statusCode).toBe(400);
      expect(empty.body).toContain('<p class="field-error" id="current_password-error">Bitte gib dein aktuelles Passwort ein.</p>');
      expect(empty.body).toContain('<p class="field-error" id="new_password-error">Das neue Passwort muss mindestens 8 Zeichen lang sein.</p>');
    }
    // Seven empty forms used up none of the five free tries: the right password still changes it.
    expect((await change(here, user.password, 'a brand new pass phrase')).statusCode).toBe(303);
  });

  it('refuses a new password against the rules, beside its field', async () => {
    const user = await makeUser(t.db, { email: 'lotte.linse@example.org' });
    const here = await logInFrom(user, FIREFOX, '198.51.100.21');
    for (const [next, message] of [
      ['', 'Das neue Passwort muss mindestens 8 Zeichen lang sein.'],
      ['short', 'Das neue Passwort muss mindestens 8 Zeichen lang sein.'],
      ['password123', 'Dieses Passwort gehört zu den am häufigsten benutzten. Bitte wähle ein anderes.'],
      ['Lotte.Linse', 'Das neue Passwort darf nicht deine E-Mail-Adresse sein, auch nicht mit Ziffern oder Zeichen daran.'],
    ] as const) {
      const response = await change(here, user.password, next);
      expect(response.statusCode, next).toBe(400);
      expect(response.body).toContain(`<p class="field-error" id="new_password-error">${message}</p>`);
      expect(response.body).toContain('aria-describedby="password-intro new_password-error" aria-invalid="true"');
    }
    expect(await isLive(here)).toBe(true);
  });

  it('changes it: the old password stops working, every other session ends with its grants, this one stays under a new id', async () => {
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.22');
    const there = await logInFrom(user, IPHONE, '198.51.100.23');
    const client = await makeClient(t);
    const code = await obtainCode(t, { clientId: client.clientId, cookie: there.cookie, scope: 'openid' });
    const tokens = (await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret! })).json() as { refresh_token: string };

    const changed = await change(here, user.password, 'Ein ganz neuer Satz zum Merken');
    expect(changed.statusCode).toBe(303);
    expect(changed.headers.location).toBe('/settings/security?changed=1');
    // OWASP: a new session id after the change; the old cookie value signs in no more, the same session goes on.
    const renewed = renewedSession(here, changed);
    expect(await isLive(here)).toBe(false);
    expect(await isLive(renewed)).toBe(true);
    const sids = await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).execute();
    expect(sids).toHaveLength(1);
    expect(await isLive(there)).toBe(false);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.secret! });
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    const login = (password: string) => t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password } });
    expect((await login(user.password)).statusCode).toBe(401);
    expect((await login('Ein ganz neuer Satz zum Merken')).statusCode).toBe(200);
    // "Your password was changed", queued with the change, in the member's language.
    const mails = await t.db.selectFrom('mail_outbox').select(['kind', 'recipient', 'locale']).where('recipient', '=', user.email).execute();
    expect(mails).toEqual([{ kind: 'password-changed', recipient: user.email, locale: 'de' }]);
    const notice = await t.app.inject({ url: '/settings/security?changed=1', headers: { cookie: renewed.cookie, 'accept-language': 'en' } });
    expect(notice.body).toContain('<p class="notice" role="status">Your password has been changed. One other session ended.</p>');
    // No other session: no count of none.
    const alone = await t.app.inject({ url: '/settings/security?changed=0', headers: { cookie: renewed.cookie, 'accept-language': 'en' } });
    expect(alone.body).toContain('<p class="notice" role="status">Your password has been changed.</p>');
  });

  it('revokes the grants of sessions that ended before (an app still signed in with the old password); this session\'s grant stays', async () => {
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.26');
    const gone = await logInFrom(user, IPHONE, '198.51.100.27');
    const client = await makeClient(t);
    const refreshTokenOf = async (session: TestSession) => {
      const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie, scope: 'openid' });
      const exchanged = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret! });
      return (exchanged.json() as { refresh_token: string }).refresh_token;
    };
    const refresh = (token: string) => tokenRequest(t, { grant_type: 'refresh_token', refresh_token: token, client_id: client.clientId, client_secret: client.secret! });
    const mine = await refreshTokenOf(here);
    const old = await refreshTokenOf(gone);
    // The other session ends as an expired one does, its grant left: the app goes on refreshing.
    await t.db.deleteFrom('sessions').where('sid', '=', gone.sid).execute();
    const stillWorking = await refresh(old);
    expect(stillWorking.statusCode).toBe(200);

    const changed = await change(here, user.password, 'Ein ganz neuer Satz zum Merken');
    expect([changed.statusCode, changed.headers.location]).toEqual([303, '/settings/security?changed=0']);
    expect((await refresh((stillWorking.json() as { refresh_token: string }).refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(mine)).statusCode).toBe(200);
    expect(await t.db.selectFrom('oauth_grants').select(['sid']).where('user_id', '=', user.id).where('revoked_at', 'is', null).execute())
      .toEqual([{ sid: here.sid }]);
    // The operator's `user set-password` keeps none: every session ends, and every grant, a gone session's too.
    await t.db.deleteFrom('sessions').where('sid', '=', here.sid).execute();
    expect(await setUserPassword(t.db, user.id, 'Noch ein ganz neuer Satz', t.clock.now())).toEqual({ sessionsEnded: 0, grantsRevoked: 1 });
    expect(await t.db.selectFrom('oauth_grants').select(['sid']).where('user_id', '=', user.id).where('revoked_at', 'is', null).execute()).toEqual([]);
  });

  it('compares passwords in NFKC: set composed (NFC), it logs in decomposed (NFD); a hash made before normalisation still takes it as typed', async () => {
    const composed = 'Käsebrötchen am Morgen'.normalize('NFC');
    const decomposed = composed.normalize('NFD');
    const user = await makeUser(t.db);
    const here = await logInFrom(user, FIREFOX, '198.51.100.24');
    const first = await change(here, user.password, composed);
    expect(first.statusCode).toBe(303);
    const login = (password: string) => t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password }, remoteAddress: '198.51.100.25' });
    expect((await login(decomposed)).statusCode).toBe(200);
    expect((await login(composed)).statusCode).toBe(200);
    // A hash made before normalisation: Argon2id of the decomposed string as typed.
    await t.db.updateTable('users').set({ password_hash: await hash(decomposed) }).where('id', '=', user.id).execute();
    expect((await login(decomposed)).statusCode).toBe(200);
    expect((await change(renewedSession(here, first), decomposed, 'Ein ganz neuer Satz zum Merken')).statusCode).toBe(303);
    expect((await login('Ein ganz neuer Satz zum Merken')).statusCode).toBe(200);
  });
});
