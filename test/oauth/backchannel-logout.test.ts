/**
 * Back-Channel Logout 1.0 end to end: whenever a session ends — /api/user/logout,
 * /logout, another member's login in that browser, `sessions revoke`, expiry —
 * every client the session signed into and that registered a back-channel
 * logout URI gets a logout token with that session's `sid` (the ID token's) and the member's
 * `sub`; so does a client whose app the member revokes on "my apps", or that
 * an orga deletes. A receiver on loopback verifies every token against our
 * JWKS. Logging out only queues: nothing is sent before the worker runs.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endSessionsOfUser, purgeExpiredSessions } from '../../src/accounts/sessions.ts';
import { deleteClient } from '../../src/oauth/clients/clients.service.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import type { TestApp } from '../helpers/app.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { LogoutReceiver, verifyLogoutToken } from '../helpers/logout-receiver.ts';
import { buildListeningApp, CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

let t: TestApp & { issuer: string };
let receiver: LogoutReceiver;
let member: TestUser;
const secrets = new Map<string, string>();
beforeAll(async () => {
  t = await buildListeningApp();
  receiver = await new LogoutReceiver().listen();
  member = await makeUser(t.db);
  for (const [clientId, required] of [['wiki', false], ['chat', true]] as const) {
    const { secret } = await makeClient(t, { clientId, backchannelLogoutUri: `${receiver.url}/${clientId}`, backchannelLogoutSessionRequired: required });
    secrets.set(clientId, secret!);
  }
  secrets.set('plain', (await makeClient(t, { clientId: 'plain' })).secret!);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

/** Signs the session into the client (authorization code flow) and returns the ID token's `sid`. */
async function signIn(session: TestSession, clientId: string): Promise<string> {
  const code = await obtainCode(t, { clientId, cookie: session.cookie });
  const response = await tokenRequest(t, {
    grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: clientId, client_secret: secrets.get(clientId)!,
  });
  expect(response.statusCode).toBe(200);
  return decodeJwt(response.json().id_token as string).sid as string;
}

interface Told { client: string; sub: unknown; sid: unknown }

/** Runs the sender; the notices the receiver got since `before`, each verified for the client its path names. */
async function deliver(before: number): Promise<Told[]> {
  await t.app.logoutNotices.runOnce();
  const told = await Promise.all(receiver.received.slice(before).map(async (request) => {
    const client = request.path.split('/').at(-1)!;
    const { sub, sid } = await verifyLogoutToken(request.logoutToken, t.issuer, client, t.clock.now());
    return { client, sub, sid };
  }));
  return told.sort((a, b) => `${a.client}${String(a.sid)}`.localeCompare(`${b.client}${String(b.sid)}`));
}

async function pendingNotices(): Promise<number> {
  return (await t.db.selectFrom('oauth_logout_notices').select('id').where('state', '=', 'pending').execute()).length;
}

describe('back-channel logout', () => {
  it('is announced in the discovery document', async () => {
    const response = await t.app.inject({ url: '/.well-known/openid-configuration' });
    expect(response.json()).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
  });

  it('POST /api/user/logout tells every client the session signed into that has a back-channel URI, after answering', async () => {
    const session = await logInAs(t.app, member);
    const sid = await signIn(session, 'wiki');
    expect(await signIn(session, 'chat')).toBe(sid);
    await signIn(session, 'plain');
    const before = receiver.received.length;
    const logout = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers });
    expect(logout.statusCode).toBe(204);
    expect(receiver.received).toHaveLength(before);
    expect(await pendingNotices()).toBe(2);
    expect(await deliver(before)).toStrictEqual([
      { client: 'chat', sub: String(member.id), sid },
      { client: 'wiki', sub: String(member.id), sid },
    ]);
    expect(await pendingNotices()).toBe(0);
  });

  it('POST /logout (the page) does the same', async () => {
    const session = await logInAs(t.app, member);
    const sid = await signIn(session, 'wiki');
    const page = await t.app.inject({ url: '/logout', headers: { cookie: session.cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const before = receiver.received.length;
    const logout = await t.app.inject({
      method: 'POST', url: '/logout', payload: new URLSearchParams({ csrf_token: csrf }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
    });
    expect(logout.statusCode).toBe(303);
    expect(await deliver(before)).toStrictEqual([{ client: 'wiki', sub: String(member.id), sid }]);
  });

  it('the same member logging in again in that browser (re-authentication) renews the session: same sid, nobody told', async () => {
    const session = await logInAs(t.app, member);
    const sid = await signIn(session, 'chat');
    const before = receiver.received.length;
    const login = await t.app.inject({
      method: 'POST', url: '/api/user/login', headers: { cookie: session.cookie }, payload: { email: member.email, password: member.password },
    });
    expect(login.statusCode).toBe(200);
    const renewed = login.cookies.find((c) => c.name === 'fs_session')!.value;
    expect(session.cookie).not.toContain(`fs_session=${renewed}`); // a new cookie value: no session fixation
    expect(await pendingNotices()).toBe(0);
    expect(await deliver(before)).toStrictEqual([]);
    // The session signs into the client again under the same sid, and its logout is told with it.
    const csrfToken = login.json().csrfToken as string;
    const cookie = `fs_session=${renewed}; CSRF_TOKEN=${csrfToken}`;
    expect(await signIn({ cookie, csrfToken, headers: {} }, 'chat')).toBe(sid);
    const logout = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: { cookie, 'x-csrf-token': csrfToken } });
    expect(logout.statusCode).toBe(204);
    expect(await deliver(before)).toStrictEqual([{ client: 'chat', sub: String(member.id), sid }]);
  });

  it('another member logging in in that browser ends the first member\'s session', async () => {
    const session = await logInAs(t.app, member);
    const sid = await signIn(session, 'chat');
    const other = await makeUser(t.db);
    const before = receiver.received.length;
    const login = await t.app.inject({
      method: 'POST', url: '/api/user/login', headers: { cookie: session.cookie }, payload: { email: other.email, password: other.password },
    });
    expect(login.statusCode).toBe(200);
    expect(await deliver(before)).toStrictEqual([{ client: 'chat', sub: String(member.id), sid }]);
  });

  it('an operator\'s sessions revoke tells the clients of every session of the user', async () => {
    const user = await makeUser(t.db);
    const first = await signIn(await logInAs(t.app, user), 'wiki');
    const second = await signIn(await logInAs(t.app, user), 'wiki');
    const before = receiver.received.length;
    expect(await endSessionsOfUser(t.db, user.id, t.clock.now())).toEqual({ sessionsEnded: 2, grantsRevoked: 2 });
    expect(await deliver(before)).toStrictEqual([
      { client: 'wiki', sub: String(user.id), sid: first },
      { client: 'wiki', sub: String(user.id), sid: second },
    ].sort((a, b) => a.sid.localeCompare(b.sid)));
  });

  it('an expired session is told of when the purge removes it', async () => {
    const user = await makeUser(t.db);
    const sid = await signIn(await logInAs(t.app, user), 'chat');
    const before = receiver.received.length;
    await purgeExpiredSessions(t.db, t.clock.now);
    expect(await pendingNotices()).toBe(0);
    t.clock.advance(8 * 3600 + 1);
    await purgeExpiredSessions(t.db, t.clock.now);
    expect(await deliver(before)).toStrictEqual([{ client: 'chat', sub: String(user.id), sid }]);
  });

  it('a session that signed into no client with a back-channel URI queues nothing', async () => {
    const session = await logInAs(t.app, member);
    await signIn(session, 'plain');
    await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers });
    expect(await pendingNotices()).toBe(0);
  });
});

describe('revoking an app on "my apps"', () => {
  async function revoke(session: TestSession, clientId: string) {
    const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: session.cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    return t.app.inject({
      method: 'POST', url: '/settings/apps/revoke', payload: new URLSearchParams({ client_id: clientId, csrf_token: csrf }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
    });
  }
  const rowOf = async (clientId: string) => (await findClientRow(t.db, clientId))!.id;

  it('tells the client of each session that signed into it; the session stays, and its later logout does not tell that client again', async () => {
    const user = await makeUser(t.db);
    const session = await logInAs(t.app, user);
    const sid = await signIn(session, 'wiki');
    await signIn(session, 'chat');
    await rememberConsent(t.db, user.id, await rowOf('wiki'), ['openid'], t.clock.now());
    const before = receiver.received.length;
    expect((await revoke(session, 'wiki')).statusCode).toBe(303);
    expect(await deliver(before)).toStrictEqual([{ client: 'wiki', sub: String(user.id), sid }]);

    const afterRevoke = receiver.received.length;
    expect((await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers })).statusCode).toBe(204);
    expect(await deliver(afterRevoke)).toStrictEqual([{ client: 'chat', sub: String(user.id), sid }]);
  });

  it('with no session signed in: sub only, and nothing to a client that requires sid', async () => {
    const user = await makeUser(t.db);
    const session = await logInAs(t.app, user);
    await rememberConsent(t.db, user.id, await rowOf('wiki'), ['openid'], t.clock.now());
    await rememberConsent(t.db, user.id, await rowOf('chat'), ['openid'], t.clock.now());
    const before = receiver.received.length;
    expect((await revoke(session, 'wiki')).statusCode).toBe(303);
    expect((await revoke(session, 'chat')).statusCode).toBe(303);
    expect(await deliver(before)).toStrictEqual([{ client: 'wiki', sub: String(user.id), sid: undefined }]);
  });
});

describe('deleting a client', () => {
  it('tells it of every session that signed into it, after it is gone', async () => {
    const { secret } = await makeClient(t, { clientId: 'doomed', backchannelLogoutUri: `${receiver.url}/doomed` });
    secrets.set('doomed', secret!);
    const one = await makeUser(t.db);
    const two = await makeUser(t.db);
    const sidOne = await signIn(await logInAs(t.app, one), 'doomed');
    const sidTwo = await signIn(await logInAs(t.app, two), 'doomed');
    const before = receiver.received.length;
    await deleteClient(t.db, 'doomed');
    expect(await findClientRow(t.db, 'doomed')).toBeUndefined();
    expect(await deliver(before)).toStrictEqual([
      { client: 'doomed', sub: String(one.id), sid: sidOne },
      { client: 'doomed', sub: String(two.id), sid: sidTwo },
    ].sort((a, b) => a.sid.localeCompare(b.sid)));
  });
});
