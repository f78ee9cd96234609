/**
 * The member pages of the admin screen (/admin/users): orga only, search by
 * name or email with paging, a member's page, and the actions — end every
 * session, disable (login refused with its message, sessions, tokens and
 * logins waiting for a second factor gone, back-channel logout queued, no
 * unlock or reset mail), enable — with their security events; refusals
 * (CSRF, oneself, a peer, a repeat) write nothing.
 */
import { sql } from 'kysely';
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { unlockMailComposer } from '../../src/accounts/login-unlock.mail.ts';
import { findPendingLogin, holdPendingLogin } from '../../src/accounts/one-time-codes/pending-logins.ts';
import { resetMailComposer } from '../../src/accounts/password-reset.mail.ts';
import { searchMembers } from '../../src/accounts/member-search.ts';
import { peekResetToken, storeResetToken } from '../../src/accounts/password-reset.ts';
import { randomToken } from '../../src/accounts/sessions.ts';
import { PAGE_SIZE } from '../../src/web/members/members.page.ts';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest, unescapeHtml } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';
import { installWriteLog, type WriteLog } from '../helpers/write-log.ts';

const t = useTestApp();
let orga: LoggedIn;
let writes: WriteLog;
let client: { clientId: string; secret: string };

beforeAll(async () => {
  orga = await t.as('orga');
  client = (await makeClient(t, { backchannelLogoutUri: 'https://app.example.org/logout' })) as { clientId: string; secret: string };
  writes = await installWriteLog(t.db);
});

beforeEach(async () => {
  await t.app.securityEvents.settled();
  await writes.take();
});

const get = (url: string, session: TestSession | null = orga, language = 'en') =>
  t.app.inject({ url, headers: { 'accept-language': language, ...(session ? { cookie: session.cookie } : {}) } });

const post = (url: string, form: Record<string, string>, session: TestSession = orga) => t.app.inject({
  method: 'POST', url, payload: new URLSearchParams(form).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en', cookie: session.cookie },
});

/** The text of each row of the (first) table. */
function rows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => unescapeHtml(c[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim())));
}

/** A member signed in to the test app with a refresh token (a grant under their session). */
async function signedIn(user: TestUser): Promise<{ session: TestSession; refreshToken: string }> {
  const session = await logInAs(t.app, user);
  const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
  const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret });
  expect(response.statusCode).toBe(200);
  return { session, refreshToken: (response.json() as { refresh_token: string }).refresh_token };
}

const refresh = (refreshToken: string) => tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.secret });

async function storedEvents(userId: number) {
  await t.app.securityEvents.settled();
  return (await t.db.selectFrom('security_events').select(['event', 'details']).where('user_id', '=', userId).orderBy('id').execute())
    .map((r) => ({ event: r.event, ...r.details }));
}

const apiLogin = (user: TestUser) => t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password } });

describe('who may see the member pages', () => {
  test('logged out: the login page, coming back; a member who is not orga: 403 on every page and form, nothing written', async () => {
    const anonymous = await get('/admin/users?q=anna', null);
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/login?return_to=%2Fadmin%2Fusers%3Fq%3Danna');
    const ambassador = await t.as('ambassador');
    const target = await makeUser(t.db);
    await writes.take();
    for (const url of ['/admin/users', `/admin/users/${target.id}`, `/admin/users/${target.id}/delete`]) {
      const response = await get(url, ambassador);
      expect(response.statusCode, url).toBe(403);
      expect(response.body, url).not.toContain(target.email);
    }
    for (const action of ['sessions/end', 'disable', 'enable', 'delete']) {
      const response = await post(`/admin/users/${target.id}/${action}`, { csrf_token: ambassador.csrfToken, email: target.email }, ambassador);
      expect(response.statusCode, action).toBe(403);
    }
    // Nothing but the refusals on record (OWASP Logging Cheat Sheet: authorization failures).
    await t.app.securityEvents.settled();
    expect(await writes.take()).toEqual(['security_events']);
    const denied = await t.db.selectFrom('security_events').select('details').where('event', '=', 'access.denied').where('user_id', '=', ambassador.user.id).execute();
    expect(denied.map((e) => e.details)).toEqual([
      { page: 'GET /admin/users', reason: 'role', refused: 1 }, { page: 'GET /admin/users/:id', reason: 'role', refused: 1 }, { page: 'GET /admin/users/:id/delete', reason: 'role', refused: 1 },
      ...['sessions/end', 'disable', 'enable', 'delete'].map((action) => ({ page: `POST /admin/users/:id/${action}`, reason: 'role', refused: 1 })),
    ]);
    expect((await apiLogin(target)).statusCode).toBe(200);
  });
});

describe('the list', () => {
  test('search by name or email, any case, with a literal %; deleted members left out', async () => {
    const anna = await makeUser(t.db, { firstName: 'Anna', lastName: 'Zimmermann', email: 'anna.z@example.test' });
    await makeUser(t.db, { firstName: 'Bernd', lastName: 'Zimmermann', email: 'bernd@example.test' });
    await makeUser(t.db, { firstName: 'Carla', lastName: 'Percent', email: 'carla%z@example.test' });
    const names = async (q: string) => {
      const response = await get(`/admin/users?q=${encodeURIComponent(q)}`);
      expect(response.statusCode, q).toBe(200);
      return rows(response.body).map((r) => r[0]);
    };
    expect(await names('zimmermann')).toEqual(['Anna Zimmermann', 'Bernd Zimmermann']);
    expect(await names('ANNA Z')).toEqual(['Anna Zimmermann']);
    expect(await names('anna.z@EXAMPLE')).toEqual(['Anna Zimmermann']);
    expect(await names('%z@')).toEqual(['Carla Percent']);
    expect(await names('nobody-has-this')).toEqual([]);
    expect((await get('/admin/users?q=nobody-has-this')).body).toContain('No members found.');
    const row = rows((await get('/admin/users?q=anna.z')).body)[0];
    expect(row).toEqual(['Anna Zimmermann', 'anna.z@example.test', 'foodsaver', 'active']);
    // The role in the page's language, not the CLI's token.
    expect(rows((await get('/admin/users?q=anna.z', orga, 'de')).body)[0]![2]).toBe('Foodsaver*in');
    expect((await get(`/admin/users/${anna.id}`, orga, 'de')).body).toContain('<dd>Foodsaver*in</dd>');
    expect((await get('/admin/users?q=anna.z')).body).toContain(`<a href="/admin/users/${anna.id}">Anna Zimmermann</a>`);
    await t.db.updateTable('users').set({ deleted_at: new Date(), disabled_at: new Date() }).where('id', '=', anna.id).execute();
    expect(await names('zimmermann')).toEqual(['Bernd Zimmermann']);
  });

  test('a search with a NUL byte or another character no name or address holds: 400, the message at the field, nothing listed or written', async () => {
    await makeUser(t.db, { firstName: 'Nul', lastName: 'Zeichen' });
    await writes.take();
    for (const q of ['\u0000', 'nul\u0000', 'Nul\tZeichen', 'a\u0085', 'Nul \u202eZeichen']) {
      const response = await get(`/admin/users?q=${encodeURIComponent(q)}`);
      expect(response.statusCode, q).toBe(400);
      expect(response.body, q).toContain('<p class="error" role="alert" tabindex="-1" autofocus>Please correct the search.</p>');
      expect(response.body, q).toContain('aria-invalid="true" aria-describedby="q-error"');
      expect(response.body, q).toContain('<p class="field-error" id="q-error">Names and email addresses contain no control characters (such as tabs or line breaks) and no invisible characters that reverse the writing direction.</p>');
      expect(rows(response.body), q).toEqual([]);
    }
    const german = await get('/admin/users?q=%00', orga, 'de');
    expect(german.statusCode).toBe(400);
    expect(german.body).toContain('<p class="field-error" id="q-error">Namen und E-Mail-Adressen enthalten keine Steuerzeichen');
    expect(await searchMembers(t.db, 'nul\u0000', PAGE_SIZE, 0)).toEqual({ members: [], more: false });
    expect(await writes.take()).toEqual([]);
    expect((await get('/admin/users?q=nul')).statusCode).toBe(200);
  });

  test(`${PAGE_SIZE} a page in a stable order (last name, first name, id), previous/next keeping the search`, async () => {
    const made: number[] = [];
    for (let i = 0; i < PAGE_SIZE + 5; i += 1) made.push((await makeUser(t.db, { firstName: 'Pager', lastName: `Member${String(i % 7)}` })).id);
    const first = await get('/admin/users?q=pager');
    const second = await get('/admin/users?q=pager&page=2');
    const idsOf = (html: string) => [...html.matchAll(/<a href="\/admin\/users\/(\d+)">/g)].map((m) => Number(m[1]));
    const firstIds = idsOf(first.body);
    const secondIds = idsOf(second.body);
    expect(firstIds).toHaveLength(PAGE_SIZE);
    expect(secondIds).toHaveLength(5);
    const expected = (await t.db.selectFrom('users').select('id').where('first_name', '=', 'Pager').orderBy('last_name').orderBy('id').execute()).map((r) => r.id);
    expect([...firstIds, ...secondIds]).toEqual(expected);
    expect(first.body).toContain('href="/admin/users?q=pager&amp;page=2" rel="next"');
    expect(first.body).not.toContain('rel="prev"');
    expect(second.body).toContain('href="/admin/users?q=pager" rel="prev"');
    expect(second.body).not.toContain('rel="next"');
    // A page number that is none: the first page.
    expect(idsOf((await get('/admin/users?q=pager&page=abc')).body)).toEqual(firstIds);
  });
});

describe('a member\'s page', () => {
  test('role, regions, sessions, apps, sign-in methods, recent events and the audit link; German too', async () => {
    const berlin = await makeRegion(t.db, { name: 'Berlin' });
    const member = await makeUser(t.db, { role: 'ambassador', firstName: 'Maja', lastName: 'Muster', regionIds: [berlin], ambassadorOf: [berlin] });
    const session = await t.app.inject({
      method: 'POST', url: '/api/user/login', payload: { email: member.email, password: member.password },
      headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0' }, remoteAddress: '203.0.113.7',
    });
    expect(session.statusCode).toBe(200);
    await signedIn(member);
    await t.app.securityEvents.settled();
    await t.db.insertInto('security_events').values({ occurred_at: new Date(), event: 'account.password.changed', level: 'info', user_id: member.id, details: '{}' }).execute();
    const response = await get(`/admin/users/${member.id}`);
    expect(response.statusCode).toBe(200);
    const html = response.body;
    expect(html).toContain('<h1>Maja Muster</h1>');
    expect(html).toMatch(/<dt>Role<\/dt><dd>ambassador<\/dd>/);
    expect(html).toMatch(/<dt>Ambassador of<\/dt><dd>Berlin<\/dd>/);
    expect(html).toMatch(/<dt>Password<\/dt><dd>set<\/dd>/);
    expect(html).toMatch(/<dt>One-time codes<\/dt><dd>off<\/dd>/);
    expect(html).toMatch(/<dt>Passkeys<\/dt><dd>0<\/dd>/);
    expect(html).toContain('Firefox 133 on Windows 10 (Computer)');
    expect(html).toContain('203.0.113.0/24');
    expect(html).toContain(`<code>${client.clientId}</code>`);
    expect(html).toContain('<code>account.password.changed</code>');
    expect(html).toContain(`href="/admin/audit?member=${member.id}"`);
    expect(html).toContain(`action="/admin/users/${member.id}/disable"`);
    expect(html).toContain(`action="/admin/users/${member.id}/sessions/end"`);
    const german = await get(`/admin/users/${member.id}`, orga, 'de');
    expect(german.body).toContain('Anmeldemethoden');
    expect(german.body).toMatch(/<dt>Passwort<\/dt><dd>gesetzt<\/dd>/);
    // A passkey registered: counted, its key never shown.
    await t.db.insertInto('passkeys').values({
      user_id: member.id, credential_id: 'cred-1', public_key: Buffer.from('public-key-bytes'), device_type: 'multiDevice', backed_up: true, name: 'Phone',
    }).execute();
    const withPasskey = (await get(`/admin/users/${member.id}`)).body;
    expect(withPasskey).toMatch(/<dt>Passkeys<\/dt><dd>1<\/dd>/);
    expect(withPasskey).not.toContain('cred-1');
    expect(withPasskey).not.toContain(Buffer.from('public-key-bytes').toString('base64'));
  });

  test('unknown, deleted or malformed ids: 404', async () => {
    const deleted = await makeUser(t.db);
    await t.db.updateTable('users').set({ deleted_at: new Date(), disabled_at: new Date() }).where('id', '=', deleted.id).execute();
    for (const id of ['999999', '2147483648', 'abc', '0', String(deleted.id)]) {
      const response = await get(`/admin/users/${id}`);
      expect(response.statusCode, id).toBe(404);
      expect(response.body, id).toContain('There is no such member.');
    }
  });
});

describe('actions', () => {
  test('end all sessions: a logout everywhere — sessions gone, grants revoked, back-channel logout queued, event stored', async () => {
    const member = await makeUser(t.db);
    const { session, refreshToken } = await signedIn(member);
    await logInAs(t.app, member);
    await writes.take();
    const response = await post(`/admin/users/${member.id}/sessions/end`, { csrf_token: orga.csrfToken });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/admin/users/${member.id}?done=sessions&sessions=2&grants=1`);
    expect((await get(response.headers.location as string)).body).toContain('Sessions ended: 2; app grants revoked: 1.');
    expect((await refresh(refreshToken)).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } })).statusCode).toBe(401);
    expect(await t.db.selectFrom('oauth_logout_notices').select(['client_id', 'sub']).where('sub', '=', String(member.id)).execute())
      .toEqual([{ client_id: client.clientId, sub: String(member.id) }]);
    expect(await storedEvents(member.id)).toContainEqual({ event: 'account.member.sessions_ended', actorId: orga.user.id, sessionsEnded: 2, grantsRevoked: 1 });
    // The member may sign in again.
    expect((await apiLogin(member)).statusCode).toBe(200);
  });

  test('disable: login refused with its message (page and API), sessions and tokens gone, no unlock or reset mail; enable lets them in again', async () => {
    const member = await makeUser(t.db);
    const { session, refreshToken } = await signedIn(member);
    const resetToken = randomToken();
    const hash = (await t.db.selectFrom('users').select('password_hash').where('id', '=', member.id).executeTakeFirstOrThrow()).password_hash;
    await storeResetToken(t.db, { token: resetToken, userId: member.id, passwordHash: hash, returnTo: '/' }, t.clock.now());
    // A right password waiting for its second factor: it must not start a session once the member is disabled.
    const pendingLogin = await holdPendingLogin(t.db, t.clock.now, { userId: member.id, account: member.email, remember: false, returnTo: '/' }, hash);
    await writes.take();

    const response = await post(`/admin/users/${member.id}/disable`, { csrf_token: orga.csrfToken });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/admin/users/${member.id}?done=disabled&sessions=1&grants=1`);
    // The audit log's row among them: stored before the answer.
    expect(await writes.take()).toEqual(['oauth_grants', 'oauth_logout_notices', 'oauth_session_clients', 'password_reset_tokens', 'pending_logins', 'security_events', 'sessions', 'users']);
    expect(await findPendingLogin(t.db, t.clock.now, pendingLogin)).toBeUndefined();
    const page = (await get(response.headers.location as string)).body;
    expect(page).toContain('The member is disabled. Sessions ended: 1; app grants revoked: 1.');
    expect(page).toContain(`action="/admin/users/${member.id}/enable"`);
    expect(page).not.toContain(`action="/admin/users/${member.id}/disable"`);
    expect(rows((await get(`/admin/users?q=${encodeURIComponent(member.email)}`)).body)[0]![3]).toBe('disabled');

    expect((await refresh(refreshToken)).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } })).statusCode).toBe(401);
    const api = await apiLogin(member);
    expect(api.statusCode).toBe(403);
    expect(api.json()).toMatchObject({ status: 403, code: 'auth.account-disabled', detail: 'This account is disabled. Please contact the organisation team.' });
    expect(api.headers['set-cookie']).toBeUndefined();
    const form = await t.app.inject({ url: '/login', headers: { 'accept-language': 'en' } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(form.body)![1]!;
    const cookie = form.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const pageLogin = await t.app.inject({
      method: 'POST', url: '/login', payload: new URLSearchParams({ csrf_token: csrf, email: member.email, password: member.password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en', cookie },
    });
    expect(pageLogin.statusCode).toBe(403);
    expect(pageLogin.body).toContain('This account is disabled. Please contact the organisation team.');
    // A wrong password still says only that: nothing about the account to a guesser.
    expect((await apiLogin({ ...member, password: 'wrong password here' })).json()).toMatchObject({ code: 'auth.invalid-credentials' });
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', '=', member.id).execute()).toEqual([]);

    expect(await peekResetToken(t.db, resetToken, t.clock.now())).toBeUndefined();
    const mail = { id: 1, messageKey: 'k', attempts: 1, kind: 'x', recipient: member.email, locale: 'en' as const, params: { returnTo: '/' } };
    expect(await resetMailComposer(t.config.publicUrl)(t.db, mail, t.clock.now())).toBeUndefined();
    expect(await unlockMailComposer(t.config.publicUrl)(t.db, mail, t.clock.now())).toBeUndefined();
    expect((await storedEvents(member.id)).filter((e) => e.event.startsWith('account.'))).toEqual([
      { event: 'account.login.succeeded', amr: ['pwd'] },
      { event: 'account.member.disabled', actorId: orga.user.id, sessionsEnded: 1, grantsRevoked: 1 },
      { event: 'account.login.disabled' },
      { event: 'account.login.disabled' },
      { event: 'account.login.failed', reason: 'wrong-password' },
    ]);

    await writes.take();
    const again = await post(`/admin/users/${member.id}/disable`, { csrf_token: orga.csrfToken });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('This member is already disabled.');
    // Its language switch returns to the member's page, the nearest page above the form's address.
    expect(again.body).toContain(`<a href="/language/de?return_to=${encodeURIComponent(`/admin/users/${member.id}`)}" lang="de" hreflang="de">Deutsch</a>`);
    await t.app.securityEvents.settled();
    expect(await writes.take()).toEqual([]);

    const enable = await post(`/admin/users/${member.id}/enable`, { csrf_token: orga.csrfToken });
    expect(enable.statusCode).toBe(303);
    expect(enable.headers.location).toBe(`/admin/users/${member.id}?done=enabled&sessions=0&grants=0`);
    expect(await writes.take()).toEqual(['security_events', 'users']);
    expect((await apiLogin(member)).statusCode).toBe(200);
    expect((await refresh(refreshToken)).statusCode).toBe(400);
    const twice = await post(`/admin/users/${member.id}/enable`, { csrf_token: orga.csrfToken });
    expect(twice.statusCode).toBe(409);
    expect(twice.body).toContain('This member is not disabled.');
    expect((await storedEvents(member.id)).filter((e) => e.event === 'account.member.enabled')).toEqual([{ event: 'account.member.enabled', actorId: orga.user.id }]);
  });

  test('refused, writing nothing: a wrong CSRF token, oneself, another orga member; their pages offer no actions', async () => {
    const member = await makeUser(t.db);
    const peer = await t.as('orga');
    await logInAs(t.app, member);
    await t.app.securityEvents.settled();
    await writes.take();
    for (const action of ['sessions/end', 'disable', 'enable', 'delete']) {
      const csrf = await post(`/admin/users/${member.id}/${action}`, { csrf_token: 'wrong', email: member.email });
      expect(csrf.statusCode, action).toBe(403);
      expect(csrf.body, action).toContain('The form has expired.');
      for (const target of [orga.user, peer.user]) {
        const refused = await post(`/admin/users/${target.id}/${action}`, { csrf_token: orga.csrfToken, email: target.email });
        expect(refused.statusCode, `${action} ${target.id}`).toBe(403);
        expect(refused.body).toContain('You can change only members of a lower role than yours, not yourself.');
      }
    }
    expect((await get(`/admin/users/${peer.user.id}/delete`)).statusCode).toBe(403);
    const missing = await post('/admin/users/999999/disable', { csrf_token: orga.csrfToken });
    expect(missing.statusCode).toBe(404);
    await t.app.securityEvents.settled();
    expect(await writes.take()).toEqual(['security_events']);
    // Each refusal on record, naming the member it was aimed at: a stolen organisation account probing the others leaves a trace.
    const denied = await t.db.selectFrom('security_events').select('details').where('event', '=', 'access.denied').where('user_id', '=', orga.user.id).execute();
    // One a minute for one member, route and reason: the refusal aimed at the other organisation member waits for the next.
    expect(denied.map((e) => e.details)).toEqual(['sessions/end', 'disable', 'enable', 'delete'].flatMap((action) => [
      { page: `POST /admin/users/:id/${action}`, reason: 'csrf', targetUserId: member.id, refused: 1 },
      { page: `POST /admin/users/:id/${action}`, reason: 'not-allowed', targetUserId: orga.user.id, refused: 1 },
    ]).concat([{ page: 'GET /admin/users/:id/delete', reason: 'not-allowed', targetUserId: peer.user.id, refused: 1 }]));
    const own = (await get(`/admin/users/${orga.user.id}`)).body;
    expect(own).not.toContain('method="post"');
    expect(own).toContain('You can change only members of a lower role than yours');
    const { rows: [count] } = await sql<{ n: number }>`select count(*)::integer as n from sessions where user_id = ${member.id}`.execute(t.db);
    expect(count!.n).toBe(1);
  });
});
