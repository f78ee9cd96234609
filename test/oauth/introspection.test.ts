/**
 * Token introspection (RFC 7662, RFC 9701) driven by oauth4webapi and
 * openid-client over real HTTP: what an active token reveals, everything that
 * makes one inactive (seen at once), who may ask, and the signed JWT answer.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { beforeAll, describe, expect, test } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

interface Registered { clientId: string; secret: string }
interface Tokens { access_token: string; refresh_token: string; id_token: string }

const t = useTestApp({ listening: true });
let user: TestUser;
let session: TestSession;
let app: Registered;
let resourceServer: Registered;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  user = await makeUser(t.db);
  session = await logInAs(t.app, user);
  app = (await makeClient(t)) as Registered;
  resourceServer = (await makeClient(t)) as Registered;
  const issuer = new URL(t.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }));
});

async function issueTokens(scope = 'openid profile'): Promise<Tokens> {
  const code = await obtainCode(t, { clientId: app.clientId, cookie: session.cookie, scope });
  const response = await tokenRequest(t, {
    grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: app.clientId, client_secret: app.secret,
  });
  expect(response.statusCode).toBe(200);
  return response.json() as Tokens;
}

async function introspect(token: string, caller: Registered = resourceServer, options: oauth.IntrospectionRequestOptions = {}) {
  const response = await oauth.introspectionRequest(as, { client_id: caller.clientId }, oauth.ClientSecretBasic(caller.secret), token,
    { [oauth.allowInsecureRequests]: true, ...options });
  return oauth.processIntrospectionResponse(as, { client_id: caller.clientId }, response);
}

function post(form: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url: '/oauth/introspect', payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

describe('an active access token', () => {
  test('tells a resource server (another confidential client) its scope, client, subject, times and id', async () => {
    const tokens = await issueTokens();
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet((await t.app.inject({ url: '/.well-known/jwks.json' })).json()));
    const answer = await introspect(tokens.access_token);
    expect(answer).toEqual({
      active: true, scope: 'openid profile', client_id: app.clientId, sub: String(user.id), exp: payload.exp, iat: payload.iat,
      iss: t.baseUrl, aud: app.clientId, token_type: 'Bearer', jti: payload.jti,
    });
  });

  test('with openid-client\'s tokenIntrospection, as the client itself', async () => {
    const tokens = await issueTokens();
    const config = await client.discovery(new URL(t.baseUrl), app.clientId, undefined, client.ClientSecretPost(app.secret), { execute: [client.allowInsecureRequests] });
    const answer = await client.tokenIntrospection(config, tokens.access_token);
    expect(answer).toMatchObject({ active: true, client_id: app.clientId, sub: String(user.id), token_type: 'Bearer' });
  });
});

describe('inactive tokens answer {"active": false} and nothing more', () => {
  test('revoked: at once, for the access and the refresh token of the grant', async () => {
    const tokens = await issueTokens();
    expect((await introspect(tokens.access_token)).active).toBe(true);
    const revocation = await t.app.inject({
      method: 'POST', url: '/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token: tokens.refresh_token, client_id: app.clientId, client_secret: app.secret }).toString(),
    });
    expect(revocation.statusCode).toBe(200);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    expect(await introspect(tokens.refresh_token, app)).toEqual({ active: false });
  });

  test('malformed, foreign-signed or empty-looking tokens', async () => {
    for (const token of ['x', 'a.b.c', 'a.b.c.d.e', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.', 'é'.repeat(10_000)]) {
      expect(await introspect(token), token.slice(0, 20)).toEqual({ active: false });
    }
  });

  test('a rotated refresh token; its successor is active', async () => {
    const tokens = await issueTokens();
    const rotated = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.clientId, client_secret: app.secret });
    expect(rotated.statusCode).toBe(200);
    expect(await introspect(tokens.refresh_token, app)).toEqual({ active: false });
    const successor = await introspect(rotated.json().refresh_token, app);
    expect(successor).toMatchObject({ active: true, client_id: app.clientId, sub: String(user.id), scope: 'openid profile', iss: t.baseUrl, aud: app.clientId });
    expect(successor).not.toHaveProperty('token_type');
    expect(successor.jti).toMatch(/^rt\.\d+$/);
  });

  test('a refresh token asked about by another client than its own', async () => {
    const tokens = await issueTokens();
    expect(await introspect(tokens.refresh_token, resourceServer)).toEqual({ active: false });
    expect((await introspect(tokens.refresh_token, app)).active).toBe(true);
  });

  test('an expired access token', async () => {
    const tokens = await issueTokens();
    t.clock.advance(3601);
    try {
      const response = await post({ token: tokens.access_token, client_id: resourceServer.clientId, client_secret: resourceServer.secret });
      expect(response.json()).toEqual({ active: false });
    } finally {
      t.clock.advance(-3601);
    }
  });
});

describe('who may ask', () => {
  test('a public client is refused with invalid_client', async () => {
    const spa = await makeClient(t, { confidential: false });
    const tokens = await issueTokens();
    const response = await post({ token: tokens.access_token, client_id: spa.clientId });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_client', error_description: 'Token introspection is for confidential clients.' });
  });

  test('no or wrong credentials are refused; no token is a 400', async () => {
    const tokens = await issueTokens();
    expect((await post({ token: tokens.access_token })).statusCode).toBe(401);
    expect((await post({ token: tokens.access_token, client_id: app.clientId, client_secret: 'wrong' })).json().error).toBe('invalid_client');
    const missing = await post({ client_id: app.clientId, client_secret: app.secret });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
    expect((await t.app.inject({ url: '/oauth/introspect' })).statusCode).toBe(405);
  });
});

describe('the signed answer (RFC 9701)', () => {
  test('oauth4webapi asks for it and validates it', async () => {
    const tokens = await issueTokens();
    const answer = await introspect(tokens.access_token, resourceServer, { requestJwtResponse: true });
    expect(answer).toMatchObject({ active: true, client_id: app.clientId, sub: String(user.id) });
  });

  test('typed token-introspection+jwt, addressed to the caller, signed by a key of the JWKS', async () => {
    const tokens = await issueTokens();
    const response = await post({ token: tokens.access_token, client_id: resourceServer.clientId, client_secret: resourceServer.secret },
      { accept: 'application/token-introspection+jwt' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/token-introspection+jwt');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(decodeProtectedHeader(response.body)).toMatchObject({ alg: 'RS256', typ: 'token-introspection+jwt' });
    const jwks = createLocalJWKSet((await t.app.inject({ url: '/.well-known/jwks.json' })).json());
    const { payload } = await jwtVerify(response.body, jwks, { issuer: t.baseUrl, audience: resourceServer.clientId, typ: 'token-introspection+jwt' });
    expect(payload.token_introspection).toMatchObject({ active: true, client_id: app.clientId });
  });
});

test('discovery names the endpoint and its authentication methods', async () => {
  const document = (await t.app.inject({ url: '/.well-known/openid-configuration' })).json();
  expect(document).toMatchObject({
    introspection_endpoint: `${t.baseUrl}/oauth/introspect`,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
  });
});
