/**
 * A code issued under a remembered consent racing the member's revocation of
 * the app at /settings/apps (docs/security.md, "A code in flight dies with its
 * session"): once the revocation has answered, no code of the app works,
 * whichever came first. A burst through the real endpoints (truly concurrent
 * on PostgreSQL, serial on PGlite); then, on PostgreSQL, each interleaving
 * forced by holding one side's transaction open until the other is seen
 * waiting for it. Before the consent was locked by the code's statement, a
 * code issued while the revocation ran was stored after it had deleted the
 * app's unused codes, and was exchanged for a grant that outlived it.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { s256 } from '../../src/oauth/checks/pkce.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { digestCode } from '../../src/oauth/grants/authorization-code.ts';
import { insertCodeIfConsented } from '../../src/oauth/grants/codes.repository.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { backendPid, untilWaitingOn } from '../helpers/lock-waits.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const INVALID_CODE = { error: 'invalid_grant', error_description: 'Invalid or expired code' };
const SCOPES = ['openid', 'profile', 'email', 'regions'];

const t = useTestApp();
let client: { clientId: string; secret: string };
beforeAll(async () => {
  client = (await makeClient(t)) as { clientId: string; secret: string };
});

const exchange = (code: string, app = client) => tokenRequest(t, {
  grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: app.clientId, client_secret: app.secret,
});

function authorizeQuery(clientId: string): URLSearchParams {
  return new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: SCOPES.join(' '), state: 'st', code_challenge: s256(TEST_VERIFIER), code_challenge_method: 'S256',
  });
}

/** A member signed in, with a remembered consent for `app`. */
async function consenting(app = client): Promise<{ user: TestUser; session: TestSession; clientRowId: number }> {
  const user = await makeUser(t.db);
  const session = await logInAs(t.app, user);
  const clientRowId = (await findClientRow(t.db, app.clientId))!.id;
  await rememberConsent(t.db, user.id, clientRowId, SCOPES, t.clock.now());
  return { user, session, clientRowId };
}

/** `POST /settings/apps/revoke` for `app`, as the member does it. */
async function revoker(session: TestSession, app = client): Promise<() => Promise<{ statusCode: number }>> {
  const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: session.cookie } });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  return () => t.app.inject({
    method: 'POST', url: '/settings/apps/revoke', payload: new URLSearchParams({ client_id: app.clientId, csrf_token: csrf }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
  });
}

const codesOf = (userId: number) => t.db.selectFrom('oauth_codes').select('code_digest').where('user_id', '=', userId).execute();

describe('codes asked for while the member revokes the app', () => {
  test('a burst around the revocation: afterwards no code it returned can be exchanged, and no grant is live', async () => {
    const { user, session } = await consenting();
    await obtainCode(t, { clientId: client.clientId, cookie: session.cookie }); // the client served once: the session read in the code's statement
    const revoke = await revoker(session);
    const ask = () => t.app.inject({ url: `/oauth/authorize?${authorizeQuery(client.clientId)}`, headers: { cookie: session.cookie } });
    const [revoked, ...answers] = await Promise.all([revoke(), ...Array.from({ length: 20 }, ask)]);
    expect(revoked.statusCode).toBe(303);
    const codes = answers.flatMap((a) => {
      const location = a.headers.location;
      return a.statusCode === 303 && typeof location === 'string' ? [new URL(location, 'http://x').searchParams.get('code')].filter((c) => c !== null) : [];
    });
    for (const code of codes) expect((await exchange(code)).json()).toEqual(INVALID_CODE);
    expect(await t.db.selectFrom('oauth_grants').select('id').where('user_id', '=', user.id).where('revoked_at', 'is', null).execute()).toEqual([]);
  });
});

describe.runIf(TEST_DATABASE_URL)('each interleaving, forced (PostgreSQL)', () => {
  /** Deletes the consent in a transaction held open until the authorization request waits for it; that request's answer. */
  async function askedWhileRevoking(user: TestUser, session: TestSession, clientRowId: number, clientId: string) {
    let asked: Promise<{ statusCode: number; body: string }> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('oauth_consents').where('user_id', '=', user.id).where('client_id', '=', clientRowId).execute();
      asked = t.app.inject({ url: `/oauth/authorize?${authorizeQuery(clientId)}`, headers: { cookie: session.cookie } });
      await untilWaitingOn(t.db, await backendPid(trx), asked);
    });
    return asked!;
  }

  test('the revocation deletes the consent first, the session read in the code\'s statement: it waits, then asks for consent, and stores nothing', async () => {
    const { user, session, clientRowId } = await consenting();
    await obtainCode(t, { clientId: client.clientId, cookie: session.cookie }); // served: kept in memory
    const before = await codesOf(user.id);
    const response = await askedWhileRevoking(user, session, clientRowId, client.clientId);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('name="decision"');
    expect(await codesOf(user.id)).toEqual(before);
  });

  test('the revocation deletes the consent first, the session read before: it waits, then asks for consent, and stores nothing', async () => {
    // A client this instance has not served yet is read afresh, and the session before the code's statement.
    const unserved = (await makeClient(t)) as { clientId: string; secret: string };
    const { user, session, clientRowId } = await consenting(unserved);
    const response = await askedWhileRevoking(user, session, clientRowId, unserved.clientId);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('name="decision"');
    expect(await codesOf(user.id)).toEqual([]);
  });

  test('the code\'s statement holds the consent first: the revocation waits for it, then deletes the code', async () => {
    const { user, session, clientRowId } = await consenting();
    const revoke = await revoker(session);
    const code = randomBytes(32).toString('base64url');
    const now = t.clock.now();
    let revoked: Promise<{ statusCode: number }> | undefined;
    await t.db.transaction().execute(async (trx) => {
      const stored = await insertCodeIfConsented(trx, {
        digest: digestCode(code), clientRowId, userId: user.id, redirectUri: CALLBACK, scopes: SCOPES, codeChallenge: s256(TEST_VERIFIER),
        nonce: null, authTime: now, amr: ['pwd'], acr: null, expiresAt: new Date(now.getTime() + 600_000), sid: null, dpopJkt: null,
      }, (await findClientRow(trx, client.clientId))!.version);
      expect(stored).toBe(true);
      revoked = revoke();
      await untilWaitingOn(t.db, await backendPid(trx), revoked);
    });
    expect((await revoked!).statusCode).toBe(303);
    expect(await codesOf(user.id)).toEqual([]);
  });
});
