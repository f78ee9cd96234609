/**
 * Refresh tokens: rotation on every use, the grace period for
 * a retried refresh, family revocation on reuse after it, client binding, the
 * refresh_token grant, scope narrowing, 1-month lifetime.
 */
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';
import { decryptRefreshToken } from '../../src/oauth/tokens/refresh-token.ts';

type Tokens = { access_token: string; refresh_token: string; id_token: string; scope: string };
type Registered = { clientId: string; secret: string };

const t = useTestApp();
let session: TestSession;
let client: Registered;

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
  client = (await makeClient(t)) as Registered;
});

async function tokensFor(c: Registered, app: AppUnderTest = t, cookie = session.cookie): Promise<Tokens> {
  const code = await obtainCode(app, { clientId: c.clientId, cookie });
  const response = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: c.clientId, client_secret: c.secret });
  expect(response.statusCode).toBe(200);
  return response.json();
}

function refresh(refreshToken: string, c: Registered = client, extra: Record<string, string> = {}, app: AppUnderTest = t) {
  return tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: c.clientId, client_secret: c.secret, ...extra });
}

function userinfoStatus(accessToken: string, app: AppUnderTest = t) {
  return app.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { authorization: `Bearer ${accessToken}` } }).then((r) => r.statusCode);
}

describe('refresh_token grant', () => {
  test('rotates on every use and keeps sub, auth_time and amr', async () => {
    const first = await tokensFor(client);
    const second = await refresh(first.refresh_token);
    expect(second.statusCode).toBe(200);
    expect(second.headers['cache-control']).toBe('no-store');
    const body = second.json() as Tokens;
    expect(body.refresh_token).not.toBe(first.refresh_token);
    const before = decodeJwt(first.id_token);
    const after = decodeJwt(body.id_token);
    expect(after.sub).toBe(before.sub);
    expect(after.auth_time).toBe(before.auth_time);
    expect(after.amr).toEqual(['pwd']);
    expect(after.amr).toEqual(before.amr);
    expect(decodeJwt(body.access_token).auth_time).toBe(before.auth_time);
    const third = await refresh(body.refresh_token);
    expect(third.statusCode).toBe(200);
  });

  test('a retry with the just-rotated token inside the grace period gets a valid answer', async () => {
    const first = await tokensFor(client);
    const rotated = (await refresh(first.refresh_token)).json() as Tokens;
    t.clock.advance(20);
    const retry = await refresh(first.refresh_token);
    expect(retry.statusCode).toBe(200);
    const retried = retry.json() as Tokens;
    expect(await userinfoStatus(retried.access_token)).toBe(200);
    // Both answers lead on to the same live successor.
    expect((await refresh(retried.refresh_token)).statusCode).toBe(200);
    void rotated;
  });

  test('twenty concurrent uses of one refresh token create one successor, and every answer names it (truly concurrent on PostgreSQL)', async () => {
    const first = await tokensFor(client);
    const issued = decryptRefreshToken(t.keys, first.refresh_token, t.clock.now())!;
    const [grant] = await t.db.selectFrom('oauth_refresh_tokens').select('grant_id').where('id', '=', issued.rowId).execute();
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(first.refresh_token)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    const named = new Set(answers.map((a) => decryptRefreshToken(t.keys, (a.json() as Tokens).refresh_token, t.clock.now())!.rowId));
    expect(named.size).toBe(1);
    const rows = await t.db.selectFrom('oauth_refresh_tokens').select(['id', 'successor_id']).where('grant_id', '=', grant!.grant_id).orderBy('id').execute();
    expect(rows).toEqual([{ id: issued.rowId, successor_id: [...named][0] }, { id: [...named][0], successor_id: null }]);
    // The successor is one token however many copies were handed out: using one copy, then
    // another after the grace period, is a reuse that ends the family.
    const copies = answers.map((a) => (a.json() as Tokens).refresh_token);
    const next = (await refresh(copies[0]!)).json() as Tokens;
    t.clock.advance(31);
    expect((await refresh(copies[1]!)).json().error).toBe('invalid_grant');
    expect((await refresh(next.refresh_token)).json().error).toBe('invalid_grant');
  });

  test('an invalid scope leaves the refresh token usable', async () => {
    const first = await tokensFor(client);
    expect((await refresh(first.refresh_token, client, { scope: 'openid admin' })).json().error).toBe('invalid_scope');
    expect((await refresh(first.refresh_token)).statusCode).toBe(200);
  });

  test('reuse after the grace period revokes the whole family', async () => {
    const first = await tokensFor(client);
    const rotated = (await refresh(first.refresh_token)).json() as Tokens;
    t.clock.advance(31);
    const reuse = await refresh(first.refresh_token);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().error).toBe('invalid_grant');
    expect((await refresh(rotated.refresh_token)).json().error).toBe('invalid_grant');
    expect(await userinfoStatus(rotated.access_token)).toBe(401);
    expect(await userinfoStatus(first.access_token)).toBe(401);
  });

  test('reuse of a token whose successor was already used revokes the family even inside the grace period', async () => {
    const first = await tokensFor(client);
    const second = (await refresh(first.refresh_token)).json() as Tokens;
    const third = (await refresh(second.refresh_token)).json() as Tokens;
    expect((await refresh(first.refresh_token)).json().error).toBe('invalid_grant');
    expect((await refresh(third.refresh_token)).json().error).toBe('invalid_grant');
  });

  test('the grace period is configurable (REFRESH_TOKEN_GRACE_SECONDS=0)', async () => {
    const strict = await buildTestApp({ env: { REFRESH_TOKEN_GRACE_SECONDS: '0' } });
    try {
      const c = (await makeClient(strict)) as Registered;
      const s = await logInAs(strict.app, await makeUser(strict.db));
      const first = await tokensFor(c, strict, s.cookie);
      const rotated = (await refresh(first.refresh_token, c, {}, strict)).json() as Tokens;
      strict.clock.advance(1);
      expect((await refresh(first.refresh_token, c, {}, strict)).json().error).toBe('invalid_grant');
      expect((await refresh(rotated.refresh_token, c, {}, strict)).json().error).toBe('invalid_grant');
    } finally {
      await strict.close();
    }
  });

  test("a second client's refresh token is invalid_grant", async () => {
    const other = (await makeClient(t)) as Registered;
    const tokens = await tokensFor(other);
    const response = await refresh(tokens.refresh_token, client);
    expect(response.json().error).toBe('invalid_grant');
    // And it did not harm the owner's token.
    expect((await refresh(tokens.refresh_token, other)).statusCode).toBe(200);
  });

  test('a user who left every required region of the client gets no new tokens; a member of any one still does', async () => {
    const [north, south] = [await makeRegion(t.db), await makeRegion(t.db)];
    const member = await makeUser(t.db, { regionIds: [north, south] });
    const cookie = (await logInAs(t.app, member)).cookie;
    const restricted = (await makeClient(t, { requiredRegions: [north, south] })) as Registered;
    const tokens = await tokensFor(restricted, t, cookie);
    await t.db.deleteFrom('region_memberships').where('user_id', '=', member.id).where('region_id', '=', north).execute();
    const stillMember = await refresh(tokens.refresh_token, restricted);
    expect(stillMember.statusCode).toBe(200);
    await t.db.deleteFrom('region_memberships').where('user_id', '=', member.id).execute();
    const left = await refresh(stillMember.json().refresh_token, restricted);
    expect(left.statusCode).toBe(400);
    expect(left.json()).toEqual({ error: 'invalid_grant', error_description: 'User not in required regions' });
  });

  test('a client without the refresh_token grant gets no refresh token and unauthorized_client', async () => {
    const plain = (await makeClient(t, { grantTypes: ['authorization_code'] })) as Registered;
    const tokens = await tokensFor(plain);
    expect(tokens.refresh_token).toBeUndefined();
    const mine = await tokensFor(client);
    const response = await refresh(mine.refresh_token, plain);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('unauthorized_client');
  });

  test('scope may only narrow', async () => {
    const tokens = await tokensFor(client);
    const narrowed = await refresh(tokens.refresh_token, client, { scope: 'openid email' });
    expect(narrowed.json().scope).toBe('openid email');
    expect(decodeJwt(narrowed.json().access_token).scope).toBe('openid email');
    const widened = await refresh(narrowed.json().refresh_token, client, { scope: 'openid profile email regions' });
    expect(widened.statusCode).toBe(200);
    const bogus = await refresh(widened.json().refresh_token, client, { scope: 'openid admin' });
    expect(bogus.json().error).toBe('invalid_scope');
  });

  test('expires after one month', async () => {
    const tokens = await tokensFor(client);
    t.clock.advance(30 * 24 * 3600 + 1);
    expect((await refresh(tokens.refresh_token)).json().error).toBe('invalid_grant');
  });

  test('the grant outlives every refresh token: extended by an hour past a rotation\'s token when it would end first, else left alone', async () => {
    session = await logInAs(t.app, await makeUser(t.db)); // the test before moved the clock a month on
    const tokens = await tokensFor(client);
    const rowId = decryptRefreshToken(t.keys, tokens.refresh_token, t.clock.now())!.rowId;
    const { grant_id: grant } = await t.db.selectFrom('oauth_refresh_tokens').select('grant_id').where('id', '=', rowId).executeTakeFirstOrThrow();
    const grantExpiry = async () => (await t.db.selectFrom('oauth_grants').select('expires_at').where('id', '=', grant).executeTakeFirstOrThrow()).expires_at.getTime();
    const newestToken = async () => (await t.db.selectFrom('oauth_refresh_tokens').select((eb) => eb.fn.max('expires_at').as('latest'))
      .where('grant_id', '=', grant).executeTakeFirstOrThrow()).latest as Date;
    const HOUR = 3600 * 1000;
    expect(await grantExpiry()).toBe((await newestToken()).getTime()); // as the exchange made it

    t.clock.advance(600);
    let current = (await refresh(tokens.refresh_token)).json() as Tokens;
    const extended = await grantExpiry();
    expect(extended).toBe((await newestToken()).getTime() + HOUR);

    for (let i = 0; i < 5; i += 1) { // within the hour: the grant's row is not written
      t.clock.advance(600);
      const before = (await newestToken()).getTime();
      current = (await refresh(current.refresh_token)).json() as Tokens;
      expect((await newestToken()).getTime()).toBeGreaterThanOrEqual(before + 600_000);
      expect(await grantExpiry()).toBe(extended);
      expect((await newestToken()).getTime()).toBeLessThan(extended);
    }
    t.clock.advance(601); // the newest token would now end after the grant: extended again
    current = (await refresh(current.refresh_token)).json() as Tokens;
    expect(await grantExpiry()).toBe((await newestToken()).getTime() + HOUR);
    expect(await userinfoStatus(current.access_token)).toBe(200);
  });

  test('garbage and tampered tokens are invalid_grant', async () => {
    expect((await refresh('not-a-token')).json().error).toBe('invalid_grant');
    session = await logInAs(t.app, await makeUser(t.db));
    const tokens = await tokensFor(client);
    const parts = tokens.refresh_token.split('.');
    parts[3] = `${parts[3]!.slice(0, -2)}AA`;
    expect((await refresh(parts.join('.'))).json().error).toBe('invalid_grant');
  });
});

describe('an operator\'s change to a client counts for the grants it has already', () => {
  const withScopes = (c: Registered, scopes: string[]) => t.db.updateTable('oauth_clients').set({ scopes }).where('client_id', '=', c.clientId).execute();
  const rowScopes = async (refreshToken: string) => (await t.db.selectFrom('oauth_refresh_tokens').select('scopes')
    .where('id', '=', decryptRefreshToken(t.keys, refreshToken, t.clock.now())!.rowId).executeTakeFirstOrThrow()).scopes;

  test('a scope taken from the client: the refresh answers without it, the successor carries it no more, and asking for it is invalid_scope', async () => {
    const c = (await makeClient(t)) as Registered;
    const tokens = await tokensFor(c);
    expect(tokens.scope).toBe('openid profile email regions');
    await withScopes(c, ['openid', 'profile']);
    const asked = await refresh(tokens.refresh_token, c, { scope: 'openid regions' });
    expect(asked.statusCode).toBe(400);
    expect(asked.json()).toEqual({ error: 'invalid_scope', error_description: 'Scope not allowed for this client: regions' });
    // Refused before the rotation: the same token still works.
    const narrowed = await refresh(tokens.refresh_token, c);
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().scope).toBe('openid profile');
    expect(decodeJwt(narrowed.json().access_token).scope).toBe('openid profile');
    expect(await rowScopes(narrowed.json().refresh_token)).toEqual(['openid', 'profile']);
    const info = await t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${narrowed.json().access_token}` } });
    expect(info.json()).toHaveProperty('given_name');
    expect(info.json()).not.toHaveProperty('email');
    expect(info.json()).not.toHaveProperty('region_ids');
    // None of the grant's scopes left: no tokens, nothing rotated.
    await withScopes(c, ['email']);
    const none = await refresh(narrowed.json().refresh_token, c);
    expect(none.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired refresh token' });
    await withScopes(c, ['openid', 'profile']);
    expect((await refresh(narrowed.json().refresh_token, c)).statusCode).toBe(200);
  });

  test('a code issued before a scope was taken or a region required: the exchange gives no more than the client may have now', async () => {
    const c = (await makeClient(t)) as Registered;
    const exchange = (code: string) => tokenRequest(t, {
      grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: c.clientId, client_secret: c.secret,
    });
    const narrowedCode = await obtainCode(t, { clientId: c.clientId, cookie: session.cookie });
    await withScopes(c, ['openid', 'profile']);
    const narrowed = await exchange(narrowedCode);
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().scope).toBe('openid profile');
    expect(await rowScopes(narrowed.json().refresh_token)).toEqual(['openid', 'profile']);

    const elsewhere = await makeRegion(t.db);
    const regionCode = await obtainCode(t, { clientId: c.clientId, cookie: session.cookie, scope: 'openid profile' });
    const clientRowId = (await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', c.clientId).executeTakeFirstOrThrow()).id;
    await t.db.insertInto('oauth_client_regions').values({ client_id: clientRowId, region_id: elsewhere }).execute();
    const outside = await exchange(regionCode);
    expect(outside.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });
    // Nothing redeemed: the first code is used, the second is not.
    const unused = await t.db.selectFrom('oauth_codes').select('used_at').where('client_id', '=', clientRowId).execute();
    expect(unused.map((row) => row.used_at === null).sort()).toEqual([false, true]);
  });
});

