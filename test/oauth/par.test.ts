/**
 * Pushed Authorization Requests (RFC 9126) over real HTTP: oauth4webapi's
 * `pushedAuthorizationRequest` and openid-client's `buildAuthorizationUrlWithPAR`
 * drive the whole flow with a member who logs in and consents in the middle;
 * then every refusal, with what was (not) stored.
 */
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { sql } from 'kysely';
import { beforeAll, describe, expect, test } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { Browser, CALLBACK, formFields, makeClient } from '../helpers/oauth.ts';

const t = useTestApp({ listening: true });
let user: TestUser;
const options = { [oauth.allowInsecureRequests]: true };
const URN = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/;

beforeAll(async () => {
  user = await makeUser(t.db, { firstName: 'Paula' });
});

async function storedRequests(): Promise<number> {
  const row = await t.db.selectFrom('oauth_pushed_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function discover() {
  const issuer = new URL(t.baseUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
}

/** POST /oauth/par with HTTP Basic (or a public client's client_id in the body). */
function par(form: Record<string, string>, credentials?: { clientId: string; secret: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (credentials) headers.authorization = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.secret}`).toString('base64')}`;
  return fetch(`${t.baseUrl}/oauth/par`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
}

function authorizationParameters(extra: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: 'code', redirect_uri: CALLBACK, scope: 'openid email', state: 'pushed-state',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
    ...extra,
  };
}

async function pushFor(registered: { clientId: string; secret: string | null }, extra: Record<string, string> = {}): Promise<string> {
  const response = await par(authorizationParameters(extra), { clientId: registered.clientId, secret: registered.secret! });
  expect(response.status).toBe(201);
  return ((await response.json()) as { request_uri: string }).request_uri;
}

function authorizeUrl(clientId: string, requestUri: string, extra: Record<string, string> = {}): string {
  return `/oauth/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri, ...extra })}`;
}

describe('oauth4webapi pushedAuthorizationRequest', () => {
  for (const method of ['basic', 'post', 'none'] as const) {
    test(`push, log in, consent and exchange the code (client authentication ${method})`, async () => {
      const registered = await makeClient(t, { confidential: method !== 'none' });
      const as = await discover();
      const c: oauth.Client = { client_id: registered.clientId };
      const auth = method === 'post' ? oauth.ClientSecretPost(registered.secret!)
        : method === 'basic' ? oauth.ClientSecretBasic(registered.secret!) : oauth.None();
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const pushed = await oauth.pushedAuthorizationRequest(as, c, auth, {
        redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email', state, nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      }, options);
      expect(pushed.status).toBe(201);
      expect(pushed.headers.get('cache-control')).toBe('no-store');
      const { request_uri, expires_in } = await oauth.processPushedAuthorizationResponse(as, c, pushed);
      expect(request_uri).toMatch(URN);
      expect(expires_in).toBe(60);

      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({ client_id: registered.clientId, request_uri }).toString();
      const callback = await new Browser(t.baseUrl).authorize(url.href, user);
      const params = oauth.validateAuthResponse(as, c, new URL(callback), state);
      const response = await oauth.authorizationCodeGrantRequest(as, c, auth, params, CALLBACK, verifier, options);
      const result = await oauth.processAuthorizationCodeResponse(as, c, response, { expectedNonce: nonce, requireIdToken: true });
      expect(oauth.getValidatedIdTokenClaims(result)!.sub).toBe(String(user.id));
      expect(result.scope).toBe('openid email');
      // The pushed request and every continuation were taken.
      expect(await storedRequests()).toBe(0);
    });
  }
});

describe('openid-client buildAuthorizationUrlWithPAR', () => {
  test('push, log in, consent and exchange the code', async () => {
    const registered = await makeClient(t);
    const config = await client.discovery(new URL(t.baseUrl), registered.clientId, undefined, client.ClientSecretBasic(registered.secret!), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: CALLBACK, scope: 'openid profile', state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const callback = await new Browser(t.baseUrl).authorize(url.href, user);
    const tokens = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
    expect(tokens.claims()!.sub).toBe(String(user.id));
    expect(tokens.scope).toBe('openid profile');
  });
});

describe('the front channel carries references only', () => {
  test('login return_to and consent form carry client_id and a new request_uri, never the parameters', async () => {
    const registered = await makeClient(t);
    const requestUri = await pushFor(registered);
    const browser = new Browser(t.baseUrl);
    const first = await browser.request(authorizeUrl(registered.clientId, requestUri));
    expect(first.status).toBe(303);
    const login = new URL(first.headers.get('location')!, t.baseUrl);
    expect(login.pathname).toBe('/login');
    const returnTo = new URL(login.searchParams.get('return_to')!, t.baseUrl);
    expect([...returnTo.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(returnTo.searchParams.get('request_uri')).toMatch(URN);
    expect(returnTo.searchParams.get('request_uri')).not.toBe(requestUri);

    // The login page names the app: the continuation is the app's own live pushed request.
    expect(await (await browser.follow(login.href)).response.text()).toContain('<p>Melde dich an, um mit „Test App“ fortzufahren.</p>');
    const consent = await browser.logIn(login.href, user);
    const fields = formFields(await consent.response.text());
    expect(Object.keys(fields).sort()).toEqual(['client_id', 'csrf_token', 'request_uri']);
    expect(fields.request_uri).toMatch(URN);

    const done = await browser.follow('/oauth/authorize', { form: { ...fields, decision: 'allow' } });
    const callback = new URL(done.location!);
    expect(callback.origin + callback.pathname).toBe(CALLBACK);
    expect(callback.searchParams.get('state')).toBe('pushed-state');
    expect(callback.searchParams.get('code')).toBeTruthy();
    // The consent form's continuation is spent too.
    const again = await browser.request('/oauth/authorize', { form: { ...fields, decision: 'allow' } });
    expect(again.status).toBe(400);
  });

  test('the client edited while its request is under way: temporarily_unavailable at the redirect URI, with the state, not an error page', async () => {
    const registered = await makeClient(t);
    const requestUri = await pushFor(registered);
    // The edit lands between the request's read of the client and the continuation it stores: as the pushed request is taken.
    await sql`create function par_test_edit() returns trigger language plpgsql as $$
      begin update oauth_clients set name = name || '.' where id = old.client_id; return old; end $$`.execute(t.db);
    await sql`create trigger par_test_edit before delete on oauth_pushed_requests for each row execute function par_test_edit()`.execute(t.db);
    try {
      const first = await new Browser(t.baseUrl).request(authorizeUrl(registered.clientId, requestUri));
      expect(first.status).toBe(303);
      const answer = new URL(first.headers.get('location')!);
      expect(answer.origin + answer.pathname).toBe(CALLBACK);
      expect(Object.fromEntries(answer.searchParams)).toEqual({
        error: 'temporarily_unavailable', error_description: 'The client registration changed during the request; try again.', state: 'pushed-state', iss: t.baseUrl,
      });
    } finally {
      await sql`drop trigger par_test_edit on oauth_pushed_requests`.execute(t.db);
      await sql`drop function par_test_edit()`.execute(t.db);
    }
    // Tried again: the client as it is now.
    const again = await new Browser(t.baseUrl).request(authorizeUrl(registered.clientId, await pushFor(registered)));
    expect(new URL(again.headers.get('location')!, t.baseUrl).pathname).toBe('/login');
  });

  test('authorization parameters next to request_uri are ignored (RFC 9126 §4)', async () => {
    const registered = await makeClient(t, { redirectUris: [CALLBACK, 'http://127.0.0.1:3000/other'] });
    const requestUri = await pushFor(registered);
    const callback = await new Browser(t.baseUrl).authorize(
      `${t.baseUrl}${authorizeUrl(registered.clientId, requestUri, { redirect_uri: 'http://127.0.0.1:3000/other', state: 'forged', scope: 'openid profile email' })}`,
      user,
    );
    const url = new URL(callback);
    expect(url.origin + url.pathname).toBe(CALLBACK);
    expect(url.searchParams.get('state')).toBe('pushed-state');
  });
});

describe('refusals at /oauth/authorize: an error page, never a redirect', () => {
  async function expectPage(url: string, message: string, browser = new Browser(t.baseUrl, 'en')) {
    const response = await browser.request(url);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain(message);
  }

  test('a request_uri older than 60 seconds', async () => {
    const registered = await makeClient(t);
    const requestUri = await pushFor(registered);
    t.clock.advance(61);
    await expectPage(authorizeUrl(registered.clientId, requestUri), 'Invalid or expired request_uri');
  });

  test('a request_uri used once already', async () => {
    const registered = await makeClient(t);
    const requestUri = await pushFor(registered);
    const first = await new Browser(t.baseUrl).request(authorizeUrl(registered.clientId, requestUri));
    expect(first.status).toBe(303);
    await expectPage(authorizeUrl(registered.clientId, requestUri), 'Invalid or expired request_uri');
  });

  test("another client's request_uri (which stays usable by its own client)", async () => {
    const owner = await makeClient(t);
    const other = await makeClient(t);
    const requestUri = await pushFor(owner);
    await expectPage(authorizeUrl(other.clientId, requestUri), 'Invalid or expired request_uri');
    const own = await new Browser(t.baseUrl).request(authorizeUrl(owner.clientId, requestUri));
    expect(own.status).toBe(303);
    expect(own.headers.get('location')).toMatch(/^\/login\?return_to=/);
  });

  test('a request_uri that is not one of ours', async () => {
    const registered = await makeClient(t);
    for (const uri of ['https://client.example/request.jwt', 'urn:ietf:params:oauth:request_uri:short', '']) {
      await expectPage(authorizeUrl(registered.clientId, uri), 'Invalid or expired request_uri');
    }
  });

  test('a client that must push, asking without request_uri; pushed, it may', async () => {
    const registered = await makeClient(t, { requirePushedAuthorizationRequests: true });
    const query = new URLSearchParams({ client_id: registered.clientId, ...authorizationParameters() });
    await expectPage(`/oauth/authorize?${query}`, 'Pushed authorization request required');
    const requestUri = await pushFor(registered);
    const pushed = await new Browser(t.baseUrl).request(authorizeUrl(registered.clientId, requestUri));
    expect(pushed.status).toBe(303);
    expect(pushed.headers.get('location')).toMatch(/^\/login\?return_to=/);
  });
});

describe('refusals at /oauth/par: RFC 6749 JSON, nothing stored', () => {
  async function expectRefusal(response: Response, status: number, body: Record<string, string>) {
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual(body);
  }

  test('request_uri inside a pushed request', async () => {
    const registered = await makeClient(t);
    const before = await storedRequests();
    const response = await par(authorizationParameters({ request_uri: 'urn:ietf:params:oauth:request_uri:abc' }), { clientId: registered.clientId, secret: registered.secret! });
    await expectRefusal(response, 400, {
      error: 'invalid_request', error_description: 'request_uri must not be sent to the pushed authorization request endpoint.',
    });
    expect(await storedRequests()).toBe(before);
  });

  test('wrong or missing client credentials', async () => {
    const registered = await makeClient(t);
    const before = await storedRequests();
    const wrong = await par(authorizationParameters(), { clientId: registered.clientId, secret: 'wrong' });
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="oauth", charset="UTF-8"');
    await expectRefusal(wrong, 401, { error: 'invalid_client', error_description: 'Unknown client or wrong credentials.' });
    await expectRefusal(await par({ ...authorizationParameters(), client_id: registered.clientId }), 401, {
      error: 'invalid_client', error_description: 'Unknown client or wrong credentials.',
    });
    await expectRefusal(await par(authorizationParameters()), 401, { error: 'invalid_client', error_description: 'Client authentication is required.' });
    expect(await storedRequests()).toBe(before);
  });

  test('the authorization checks: redirect_uri, scope, response_type, PKCE of a public client', async () => {
    const confidential = await makeClient(t);
    const credentials = { clientId: confidential.clientId, secret: confidential.secret! };
    const publicClient = await makeClient(t, { confidential: false });
    const before = await storedRequests();
    await expectRefusal(await par(authorizationParameters({ redirect_uri: 'https://evil.example/cb' }), credentials), 400, {
      error: 'invalid_request', error_description: 'Invalid redirect_uri',
    });
    await expectRefusal(await par(authorizationParameters({ scope: 'openid admin' }), credentials), 400, {
      error: 'invalid_scope', error_description: 'Unknown scope: admin',
    });
    await expectRefusal(await par(authorizationParameters({ response_type: 'token' }), credentials), 400, {
      error: 'unsupported_response_type', error_description: 'Only response_type=code is supported.',
    });
    const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = authorizationParameters();
    await expectRefusal(await par({ ...withoutPkce, client_id: publicClient.clientId }), 400, {
      error: 'invalid_request', error_description: 'Code challenge required',
    });
    expect(await storedRequests()).toBe(before);
  });

  test('malformed bodies: not a form, a NUL byte, a parameter twice', async () => {
    const registered = await makeClient(t);
    const basic = `Basic ${Buffer.from(`${registered.clientId}:${registered.secret!}`).toString('base64')}`;
    const before = await storedRequests();
    const json = await fetch(`${t.baseUrl}/oauth/par`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: basic }, body: JSON.stringify(authorizationParameters()),
    });
    await expectRefusal(json, 400, { error: 'invalid_request', error_description: 'The request body must be application/x-www-form-urlencoded.' });
    const credentials = { clientId: registered.clientId, secret: registered.secret! };
    await expectRefusal(await par(authorizationParameters({ state: 'a\u0000b' }), credentials), 400, {
      error: 'invalid_request', error_description: 'The parameter state contains a NUL character.',
    });
    const twice = await fetch(`${t.baseUrl}/oauth/par`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: `${new URLSearchParams(authorizationParameters())}&scope=openid`,
    });
    await expectRefusal(twice, 400, { error: 'invalid_request', error_description: 'The parameter scope must be given once.' });
    expect(await storedRequests()).toBe(before);
  });

  test('a body beyond the size the server takes: 413 (RFC 9126 §2.3); the token endpoint answers RFC 6749\'s 400', async () => {
    const registered = await makeClient(t);
    const before = await storedRequests();
    const huge = await par(authorizationParameters({ state: 'x'.repeat(70_000) }), { clientId: registered.clientId, secret: registered.secret! });
    await expectRefusal(huge, 413, { error: 'invalid_request', error_description: 'The request body is too large.' });
    expect(await storedRequests()).toBe(before);
    const token = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=authorization_code&code=${'x'.repeat(70_000)}`,
    });
    await expectRefusal(token, 400, { error: 'invalid_request', error_description: 'The request body is too large.' });
  });

  test('GET is not allowed', async () => {
    const response = await fetch(`${t.baseUrl}/oauth/par`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });
});

describe('discovery', () => {
  test('advertises the endpoint and that pushing is optional server-wide', async () => {
    const as = await discover();
    expect(as.pushed_authorization_request_endpoint).toBe(`${t.baseUrl}/oauth/par`);
    expect(as.require_pushed_authorization_requests).toBe(false);
  });
});
