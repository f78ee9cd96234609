/**
 * Login sessions with ids (OpenID Connect `sid`; Back-Channel Logout 1.0
 * §2.1, RP-Initiated Logout 1.0 §2): each login gets a random public `sid`;
 * a code issued under the session records that the session signed into the
 * client; the ID tokens of the exchange and of every refresh carry the `sid`.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { makeUser } from '../helpers/factories.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function loggedInMember() {
  const user = await makeUser(t.db);
  return { ...(await logInAs(t.app, user)), user };
}

type Tokens = { id_token: string; refresh_token: string };

async function signIn(clientId: string, secret: string, cookie: string): Promise<Tokens> {
  const code = await obtainCode(t, { clientId, cookie });
  const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: clientId, client_secret: secret });
  expect(response.statusCode).toBe(200);
  return response.json();
}

const sessionsOf = (userId: number) => t.db.selectFrom('sessions').select('sid').where('user_id', '=', userId).execute();
const sessionClients = (sid: string) => t.db.selectFrom('oauth_session_clients').select(['client_id', 'user_id']).where('sid', '=', sid).orderBy('client_id').execute();

describe('session ids', () => {
  test('each login gets its own random sid (256 bits, base64url)', async () => {
    const member = await loggedInMember();
    await logInAs(t.app, member.user);
    const sids = (await sessionsOf(member.user.id)).map((s) => s.sid);
    expect(sids).toHaveLength(2);
    for (const sid of sids) expect(sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sids[0]).not.toBe(sids[1]);
  });

  test('the ID token carries the session\'s sid; the session records the client once; the grant and refreshes keep the sid', async () => {
    const member = await loggedInMember();
    const [{ sid }] = await sessionsOf(member.user.id) as [{ sid: string }];
    const { clientId, secret } = await makeClient(t);
    const tokens = await signIn(clientId, secret!, member.cookie);
    expect(decodeJwt(tokens.id_token).sid).toBe(sid);
    const clientRow = (await findClientRow(t.db, clientId))!;
    expect(await sessionClients(sid)).toEqual([{ client_id: clientRow.id, user_id: member.user.id }]);
    expect(await t.db.selectFrom('oauth_grants').select('sid').where('client_id', '=', clientRow.id).execute()).toEqual([{ sid }]);

    const again = await signIn(clientId, secret!, member.cookie);
    expect(decodeJwt(again.id_token).sid).toBe(sid);
    expect(await sessionClients(sid)).toHaveLength(1);

    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId, client_secret: secret! });
    expect(refreshed.statusCode).toBe(200);
    expect(decodeJwt((refreshed.json() as Tokens).id_token).sid).toBe(sid);
  });

  test('a code issued at once under a remembered consent records the session too', async () => {
    const member = await loggedInMember();
    const [{ sid }] = await sessionsOf(member.user.id) as [{ sid: string }];
    const { clientId, secret } = await makeClient(t);
    const clientRow = (await findClientRow(t.db, clientId))!;
    await rememberConsent(t.db, member.user.id, clientRow.id, ['openid', 'profile', 'email', 'regions'], t.clock.now());
    const tokens = await signIn(clientId, secret!, member.cookie);
    expect(decodeJwt(tokens.id_token).sid).toBe(sid);
    expect(await sessionClients(sid)).toEqual([{ client_id: clientRow.id, user_id: member.user.id }]);
  });

  test('two sessions of one member have different sids in their ID tokens', async () => {
    const member = await loggedInMember();
    const other = await logInAs(t.app, member.user);
    const { clientId, secret } = await makeClient(t);
    const first = decodeJwt((await signIn(clientId, secret!, member.cookie)).id_token).sid;
    const second = decodeJwt((await signIn(clientId, secret!, other.cookie)).id_token).sid;
    expect(first).not.toBe(second);
    expect((await sessionsOf(member.user.id)).map((s) => s.sid).sort()).toEqual([first, second].sort());
  });
});
