/**
 * A code in flight dies with its session (docs/security.md, "A code in flight
 * dies with its session"): a code issued under a login session and not yet
 * exchanged is refused once that session has ended, whichever way it ended —
 * the logout page, `/api/user/logout`, RP-initiated logout, an operator's
 * `sessions revoke`, a password change, another member's login in that
 * browser, expiry — and once the member revoked the app. Nothing is written
 * by the refused exchange. The same member's re-login (same `sid`) and the
 * end of another session leave the code usable.
 */
import { describe, expect, test } from 'vitest';
import { sessionsRevokeCommand } from '../../src/cli/sessions.commands.ts';
import type { CliContext } from '../../src/cli/command.ts';
import { userSetPasswordCommand } from '../../src/cli/users.commands.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { NO_EVENT_LOG } from '../../src/ops/security-events.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const INVALID_CODE = { error: 'invalid_grant', error_description: 'Invalid or expired code' };

const t = useTestApp();

interface SignedIn { user: TestUser; session: TestSession; client: { clientId: string; secret: string } }

async function signedIn(user?: TestUser): Promise<SignedIn> {
  const member = user ?? await makeUser(t.db);
  const client = (await makeClient(t)) as { clientId: string; secret: string };
  return { user: member, session: await logInAs(t.app, member), client };
}

function exchange({ client }: SignedIn, code: string) {
  return tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret });
}

const grantsOf = async (user: TestUser) => (await t.db.selectFrom('oauth_grants').select('id').where('user_id', '=', user.id).execute()).length;
const currentStatus = (session: TestSession) => t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } }).then((r) => r.statusCode);

/** A code issued under the session, then `end`, then the exchange: refused, and no grant written. */
async function expectCodeDiesWith(end: (s: SignedIn) => Promise<void>, s?: SignedIn): Promise<void> {
  const signed = s ?? await signedIn();
  const code = await obtainCode(t, { clientId: signed.client.clientId, cookie: signed.session.cookie });
  const grantsBefore = await grantsOf(signed.user);
  await end(signed);
  const response = await exchange(signed, code);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual(INVALID_CODE);
  expect(await grantsOf(signed.user)).toBe(grantsBefore);
}

function cliContext(password?: string): CliContext {
  return { database: async () => t.db, readPassword: async () => password ?? '', say: () => {}, events: NO_EVENT_LOG } as unknown as CliContext;
}

describe('every end of the session kills its codes not yet exchanged', () => {
  test('POST /logout (the page\'s form)', async () => {
    await expectCodeDiesWith(async ({ session }) => {
      const response = await t.app.inject({
        method: 'POST', url: '/logout', payload: new URLSearchParams({ csrf_token: session.csrfToken }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      });
      expect(response.statusCode).toBe(303);
    });
  });

  test('POST /api/user/logout', async () => {
    await expectCodeDiesWith(async ({ session }) => {
      expect((await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers })).statusCode).toBe(204);
    });
  });

  test('RP-initiated logout (GET /oauth/logout with the session\'s ID token)', async () => {
    const signed = await signedIn();
    const first = await exchange(signed, await obtainCode(t, { clientId: signed.client.clientId, cookie: signed.session.cookie }));
    const idToken = (first.json() as { id_token: string }).id_token;
    await expectCodeDiesWith(async ({ session }) => {
      const response = await t.app.inject({ url: `/oauth/logout?id_token_hint=${idToken}`, headers: { cookie: session.cookie } });
      expect(response.statusCode).toBe(200);
      expect(await currentStatus(session)).toBe(401);
    }, signed);
  });

  test('an operator\'s sessions revoke', async () => {
    await expectCodeDiesWith(async ({ user }) => {
      const result = await sessionsRevokeCommand.run(cliContext(), { user: String(user.id) });
      expect(result.json).toEqual({ userId: user.id, email: user.email, sessionsEnded: 1, grantsRevoked: 0 });
    });
  });

  test('a password change (user set-password) ends every session of the member, with its codes and grants', async () => {
    const signed = await signedIn();
    const earlier = await exchange(signed, await obtainCode(t, { clientId: signed.client.clientId, cookie: signed.session.cookie }));
    const refreshToken = (earlier.json() as { refresh_token: string }).refresh_token;
    await expectCodeDiesWith(async ({ user, session }) => {
      const result = await userSetPasswordCommand.run(cliContext('a brand new pass phrase'), { id: String(user.id) });
      expect(result.json).toEqual({ id: user.id, email: user.email, passwordChanged: true, sessionsEnded: 1, grantsRevoked: 1 });
      expect(await currentStatus(session)).toBe(401);
    }, signed);
    const refresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: signed.client.clientId, client_secret: signed.client.secret });
    expect(refresh.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired refresh token' });
  });

  test('another member\'s login in the same browser', async () => {
    await expectCodeDiesWith(async ({ session }) => {
      const other = await makeUser(t.db);
      const login = await t.app.inject({ method: 'POST', url: '/api/user/login', headers: { cookie: session.cookie }, payload: { email: other.email, password: other.password } });
      expect(login.statusCode).toBe(200);
    });
  });

  test('expiry: a code issued in the session\'s last minute is refused once the session has expired, though the code has not', async () => {
    const signed = await signedIn();
    t.clock.advance(8 * 3600 - 60);
    await expectCodeDiesWith(async () => t.clock.advance(61), signed);
  });
});

describe('a member revoking the app kills its codes not yet exchanged', () => {
  test('POST /settings/apps/revoke: the code issued before is refused', async () => {
    const signed = await signedIn();
    await rememberConsent(t.db, signed.user.id, (await findClientRow(t.db, signed.client.clientId))!.id, ['openid', 'profile', 'email', 'regions'], t.clock.now());
    await expectCodeDiesWith(async ({ session, client }) => {
      const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: session.cookie } });
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
      const response = await t.app.inject({
        method: 'POST', url: '/settings/apps/revoke', payload: new URLSearchParams({ client_id: client.clientId, csrf_token: csrf }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      });
      expect(response.statusCode).toBe(303);
      expect(await currentStatus(session)).toBe(200);
    }, signed);
  });
});

describe('what leaves the code usable', () => {
  test('the same member logging in again in that browser (same sid), and the end of another session of the member', async () => {
    const signed = await signedIn();
    const code = await obtainCode(t, { clientId: signed.client.clientId, cookie: signed.session.cookie });
    const again = await t.app.inject({ method: 'POST', url: '/api/user/login', headers: { cookie: signed.session.cookie }, payload: { email: signed.user.email, password: signed.user.password } });
    expect(again.statusCode).toBe(200);
    const elsewhere = await logInAs(t.app, signed.user);
    expect((await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: elsewhere.headers })).statusCode).toBe(204);
    const response = await exchange(signed, code);
    expect(response.statusCode).toBe(200);
    expect(await grantsOf(signed.user)).toBe(1);
  });
});
