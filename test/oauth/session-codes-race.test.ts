/**
 * A code exchange racing the end of its session (docs/security.md, "A code in
 * flight dies with its session"): it ends with either no tokens or tokens the
 * logout revokes, never a surviving grant. Twenty races through the real
 * endpoints (truly concurrent on PostgreSQL, serial on PGlite); then, on
 * PostgreSQL, each interleaving forced by holding one side's transaction open
 * until the other is seen waiting for it. The same for a code issued under a
 * remembered consent racing the member's revocation of the app at
 * /settings/apps: once the revocation has answered, no code of the app works.
 * Before the code's statement locked the consent, a code issued while the
 * revocation ran was stored after it had deleted the app's unused codes, and
 * was exchanged for a grant that outlived it.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { SESSION_COOKIE } from '../../src/accounts/session-http.ts';
import { endSession } from '../../src/accounts/sessions.ts';
import { s256 } from '../../src/oauth/checks/pkce.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { digestCode } from '../../src/oauth/grants/authorization-code.ts';
import { insertCodeIfConsented, redeemCode } from '../../src/oauth/grants/codes.repository.ts';
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

const credentials = () => ({ client_id: client.clientId, client_secret: client.secret });
const exchange = (code: string) => tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, ...credentials() });
const logOut = (session: TestSession) => t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers });
const sessionIdOf = (session: TestSession) => new URLSearchParams(session.cookie.replaceAll('; ', '&')).get(SESSION_COOKIE)!;

function authorizeQuery(clientId = client.clientId): URLSearchParams {
  return new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: SCOPES.join(' '), state: 'st', code_challenge: s256(TEST_VERIFIER), code_challenge_method: 'S256',
  });
}

async function signedIn(user: TestUser): Promise<{ session: TestSession; code: string }> {
  const session = await logInAs(t.app, user);
  return { session, code: await obtainCode(t, { clientId: client.clientId, cookie: session.cookie }) };
}

/** What the tokens of a successful exchange still do: all of it must be refused after the logout. */
async function tokenUses(tokens: { access_token: string; refresh_token: string }) {
  const refresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...credentials() });
  const introspection = await t.app.inject({
    method: 'POST', url: '/oauth/introspect', payload: new URLSearchParams({ token: tokens.access_token, ...credentials() }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const userinfo = await t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${tokens.access_token}` } });
  return { refresh: refresh.json() as unknown, introspection: introspection.json() as unknown, userinfo: userinfo.statusCode };
}

describe('an exchange racing the logout of its session', () => {
  test('twenty races (truly concurrent on PostgreSQL): the exchange fails, or every token it returned is revoked', async () => {
    const user = await makeUser(t.db);
    const pairs = [];
    for (let i = 0; i < 20; i += 1) pairs.push(await signedIn(user));
    const outcomes = await Promise.all(pairs.map(async ({ session, code }) => {
      const [exchanged, loggedOut] = await Promise.all([exchange(code), logOut(session)]);
      return { exchanged, loggedOut };
    }));
    for (const { exchanged, loggedOut } of outcomes) {
      expect(loggedOut.statusCode).toBe(204);
      if (exchanged.statusCode === 400) {
        expect(exchanged.json()).toEqual(INVALID_CODE);
        continue;
      }
      expect(exchanged.statusCode).toBe(200);
      expect(await tokenUses(exchanged.json())).toEqual({
        refresh: { error: 'invalid_grant', error_description: 'Invalid or expired refresh token' },
        introspection: { active: false },
        userinfo: 401,
      });
    }
    const surviving = await t.db.selectFrom('oauth_grants').select('id').where('user_id', '=', user.id).where('revoked_at', 'is', null).execute();
    expect(surviving).toEqual([]);
  });
});

describe.runIf(TEST_DATABASE_URL)('each interleaving, forced (PostgreSQL)', () => {
  /** Redeems the code in a transaction held open until `end` (started inside it) waits for it; the grant's revocation time afterwards. */
  async function exchangeHeldAgainst(code: string, end: () => Promise<{ statusCode: number }>, status: number): Promise<Date | null> {
    const row = (await findClientRow(t.db, client.clientId))!;
    const now = t.clock.now();
    let grantId = 0;
    let ended: Promise<{ statusCode: number }> | undefined;
    await t.db.transaction().execute(async (trx) => {
      const redeemed = await redeemCode(trx, {
        digest: digestCode(code), clientRowId: row.id, clientVersion: row.version, redirectUri: CALLBACK, challenge: s256(TEST_VERIFIER),
        now, grantExpiresAt: new Date(now.getTime() + 3600_000), refreshExpiresAt: new Date(now.getTime() + 3600_000), dpopJkt: null, refreshDpopJkt: null, clientScopes: row.scopes, requiredRegions: [],
      });
      grantId = redeemed.code!.grant_id;
      ended = end();
      await untilWaitingOn(t.db, await backendPid(trx), ended);
    });
    expect((await ended!).statusCode).toBe(status);
    return (await t.db.selectFrom('oauth_grants').select('revoked_at').where('id', '=', grantId).executeTakeFirstOrThrow()).revoked_at;
  }

  test('the exchange holds the session first: the logout waits for it, then revokes the grant it created', async () => {
    const { session, code } = await signedIn(await makeUser(t.db));
    expect(await exchangeHeldAgainst(code, () => logOut(session), 204)).toEqual(expect.any(Date));
  });

  test('the exchange holds the code first: the member\'s revocation of the app waits for it, then revokes the grant it created', async () => {
    const user = await makeUser(t.db);
    await rememberConsent(t.db, user.id, (await findClientRow(t.db, client.clientId))!.id, SCOPES, t.clock.now());
    const { session, code } = await signedIn(user);
    const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: session.cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const revoke = () => t.app.inject({
      method: 'POST', url: '/settings/apps/revoke', payload: new URLSearchParams({ client_id: client.clientId, csrf_token: csrf }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
    });
    expect(await exchangeHeldAgainst(code, revoke, 303)).toEqual(expect.any(Date));
  });

  test('the logout deletes the session first: the exchange waits for it, then finds no live code and writes nothing', async () => {
    const user = await makeUser(t.db);
    const { session, code } = await signedIn(user);
    let exchanged: ReturnType<typeof exchange> | undefined;
    await t.db.transaction().execute(async (trx) => {
      expect(await endSession(trx, sessionIdOf(session), t.clock.now())).toMatchObject({ userId: user.id });
      exchanged = exchange(code);
      await untilWaitingOn(t.db, await backendPid(trx), exchanged);
    });
    const response = await exchanged!;
    expect({ status: response.statusCode, body: response.json() as unknown }).toEqual({ status: 400, body: INVALID_CODE });
    expect(await t.db.selectFrom('oauth_grants').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
  });

  test('a code issued while the logout deletes the session, the session read first: issued (no error), and dead', async () => {
    // A client this instance has not served yet is read afresh, and the session before the code's statement.
    const unserved = (await makeClient(t)) as { clientId: string; secret: string };
    const user = await makeUser(t.db);
    const session = await logInAs(t.app, user);
    await rememberConsent(t.db, user.id, (await findClientRow(t.db, unserved.clientId))!.id, SCOPES, t.clock.now());
    let issued: Promise<string> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await endSession(trx, sessionIdOf(session), t.clock.now());
      issued = obtainCode(t, { clientId: unserved.clientId, cookie: session.cookie });
      await untilWaitingOn(t.db, await backendPid(trx), issued.catch(() => undefined));
    });
    const response = await tokenRequest(t, {
      grant_type: 'authorization_code', code: await issued!, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: unserved.clientId, client_secret: unserved.secret,
    });
    expect({ status: response.statusCode, body: response.json() as unknown }).toEqual({ status: 400, body: INVALID_CODE });
    expect(await t.db.selectFrom('oauth_session_clients').select('sid').where('user_id', '=', user.id).execute()).toEqual([]);
  });

  test('a code asked for while the logout deletes the session, read in the code\'s statement: it waits, then the login, and nothing stored', async () => {
    const user = await makeUser(t.db);
    await signedIn(user); // the client served once: kept in memory, so the session is read in the code's own statement
    const session = await logInAs(t.app, user);
    await rememberConsent(t.db, user.id, (await findClientRow(t.db, client.clientId))!.id, SCOPES, t.clock.now());
    const codesBefore = await t.db.selectFrom('oauth_codes').select('code_digest').where('user_id', '=', user.id).execute();
    let asked: Promise<{ statusCode: number; headers: Record<string, unknown> }> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await endSession(trx, sessionIdOf(session), t.clock.now());
      asked = t.app.inject({ url: `/oauth/authorize?${authorizeQuery()}`, headers: { cookie: session.cookie } });
      await untilWaitingOn(t.db, await backendPid(trx), asked);
    });
    const response = await asked!;
    expect(response.statusCode).toBe(303);
    expect(String(response.headers.location)).toMatch(/^\/login\?return_to=/);
    expect(await t.db.selectFrom('oauth_codes').select('code_digest').where('user_id', '=', user.id).execute()).toEqual(codesBefore);
  });
});

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
    // An app of its own: the failed exchanges of the races above count against theirs.
    const own = (await makeClient(t)) as { clientId: string; secret: string };
    const { user, session } = await consenting(own);
    await obtainCode(t, { clientId: own.clientId, cookie: session.cookie }); // the client served once: the session read in the code's statement
    const revoke = await revoker(session, own);
    const ask = () => t.app.inject({ url: `/oauth/authorize?${authorizeQuery(own.clientId)}`, headers: { cookie: session.cookie } });
    const [revoked, ...answers] = await Promise.all([revoke(), ...Array.from({ length: 20 }, ask)]);
    expect(revoked.statusCode).toBe(303);
    const codes = answers.flatMap((a) => {
      const location = a.headers.location;
      return a.statusCode === 303 && typeof location === 'string' ? [new URL(location, 'http://x').searchParams.get('code')].filter((c) => c !== null) : [];
    });
    for (const code of codes) {
      const exchanged = await tokenRequest(t, {
        grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: own.clientId, client_secret: own.secret,
      });
      expect(exchanged.json()).toEqual(INVALID_CODE);
    }
    expect(await t.db.selectFrom('oauth_grants').select('id').where('user_id', '=', user.id).where('revoked_at', 'is', null).execute()).toEqual([]);
  });
});

describe.runIf(TEST_DATABASE_URL)('codes and the app\'s revocation: each interleaving, forced (PostgreSQL)', () => {
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
