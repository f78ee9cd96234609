/**
 * Bad input at the OAuth endpoints is a clear 4xx in the endpoint's own error
 * format, never a 500: NUL bytes (PostgreSQL text cannot hold them) in
 * client ids, redirect URIs and the nonce that is stored with the code.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, formFields, makeClient, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const ISSUER = 'http://localhost:8080';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSW-cM1Y';
const t = useTestApp();
let session: TestSession;
let client: { clientId: string; secret: string };

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
  client = (await makeClient(t)) as { clientId: string; secret: string };
});

async function codeCount(): Promise<number> {
  return Number((await t.db.selectFrom('oauth_codes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

describe('NUL bytes', () => {
  test('authorization endpoint: a client_id with NUL is the "Invalid client_id" page', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const query = `client_id=${encodeURIComponent(`${client.clientId}\u0000`)}&redirect_uri=${encodeURIComponent(CALLBACK)}`;
      const response = await t.app.inject(method === 'GET'
        ? { method, url: `/oauth/authorize?${query}`, headers: { 'accept-language': 'en' } }
        : { method, url: '/oauth/authorize', payload: query, headers: { 'accept-language': 'en', 'content-type': 'application/x-www-form-urlencoded' } });
      expect(response.statusCode).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain('Invalid client_id');
    }
  });

  test('authorization endpoint: a nonce with NUL is invalid_request at the redirect URI, on the consent decision too', async () => {
    const request = {
      response_type: 'code', client_id: client.clientId, redirect_uri: CALLBACK, scope: 'openid', state: 's1',
      code_challenge: CHALLENGE, code_challenge_method: 'S256',
    };
    const page = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams(request)}`, headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(200);
    const before = await codeCount();
    const decision = await t.app.inject({
      method: 'POST', url: '/oauth/authorize', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...formFields(page.body), nonce: 'n\u0000', decision: 'allow' }).toString(),
    });
    expect(decision.statusCode).toBe(303);
    expect(Object.fromEntries(new URL(decision.headers.location as string).searchParams)).toEqual({
      error: 'invalid_request', error_description: 'The parameter nonce contains a NUL character.', state: 's1', iss: ISSUER,
    });
    expect(await codeCount()).toBe(before);
    const get = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams({ ...request, nonce: 'n\u0000' })}`, headers: { cookie: session.cookie } });
    expect(get.statusCode).toBe(303);
    expect(new URL(get.headers.location as string).searchParams.get('error')).toBe('invalid_request');
  });

  test('token endpoint: a form parameter with NUL is invalid_request; a Basic client id with NUL is invalid_client', async () => {
    const post = await tokenRequest(t, { grant_type: 'authorization_code', client_id: 'x\u0000', code: 'c', redirect_uri: CALLBACK });
    expect(post.statusCode).toBe(400);
    expect(post.json()).toEqual({ error: 'invalid_request', error_description: 'The parameter client_id contains a NUL character.' });

    const basic = await tokenRequest(t, { grant_type: 'authorization_code', code: 'c', redirect_uri: CALLBACK },
      { authorization: `Basic ${Buffer.from('%00:secret').toString('base64')}` });
    expect(basic.statusCode).toBe(401);
    expect(basic.headers['www-authenticate']).toBe('Basic realm="oauth", charset="UTF-8"');
    expect(basic.json().error).toBe('invalid_client');

    const redirect = await tokenRequest(t, { grant_type: 'authorization_code', client_id: client.clientId, client_secret: client.secret, code: 'c', redirect_uri: '\u0000' });
    expect(redirect.statusCode).toBe(400);
    expect(redirect.json()).toEqual({ error: 'invalid_request', error_description: 'The parameter redirect_uri contains a NUL character.' });
  });

  test('/settings/apps: a client id with NUL is the "unknown app" answer, not a 500', async () => {
    const page = await t.app.inject({ method: 'GET', url: `/settings/apps?revoked=${encodeURIComponent('x\u0000')}`, headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(200);
    const revoke = await t.app.inject({
      method: 'POST', url: '/settings/apps/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      payload: new URLSearchParams({ client_id: 'x\u0000', csrf_token: session.csrfToken }).toString(),
    });
    expect(revoke.statusCode).toBe(404);
  });

  test('registering a client whose name has a control character is a validation error, not a 500', async () => {
    const input = {
      clientId: 'nul-name', name: 'Evil\u0000App', confidential: true, redirectUris: [CALLBACK],
      scopes: ['openid'], grantTypes: ['authorization_code'], requiredRegions: [],
    } as Parameters<typeof createClient>[2];
    await expect(createClient(t.db, t.keys, input)).rejects.toMatchObject({ errors: [{ field: 'name', message: 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)' }] });
    expect(await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', 'nul-name').executeTakeFirst()).toBeUndefined();
  });

  test('revocation endpoint: client_id with NUL is invalid_request', async () => {
    const response = await t.app.inject({
      method: 'POST', url: '/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token: 'x', client_id: '\u0000' }).toString(),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'The parameter client_id contains a NUL character.' });
  });
});
