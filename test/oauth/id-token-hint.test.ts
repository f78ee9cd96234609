/**
 * `id_token_hint` at the authorization endpoint (OpenID Connect Core
 * §3.1.2.1): a hint naming the logged-in member changes nothing, expired or
 * not; one naming another member asks for a login as `prompt=login` does —
 * `login_required` under `prompt=none`, or when the login brings someone
 * else; a hint that does not verify or was issued to another client goes back
 * to the client as `invalid_request`. No code is stored for a refused request.
 * Pushed requests (RFC 9126) carry the hint too. The `sub` value of the
 * `claims` parameter's ID token names a member as the hint does (§5.5.1).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { ID_TOKEN_SECONDS } from '../../src/oauth/lifetimes.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, formFields, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const ISSUER = 'http://localhost:8080';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const SCOPES = ['openid', 'profile'];
const OTHER_MEMBER = 'The logged-in user is not the one the id_token_hint names.';

const t = useTestApp();
let anna: TestUser;
let bert: TestUser;
let annaSession: TestSession;
let bertSession: TestSession;
let app: { clientId: string; secret: string };
let other: { clientId: string; secret: string };
/** ID tokens (and an access token) issued to `app` for each member, and one of Bert's issued to `other`. */
let annaHint: string;
let bertHint: string;
let bertAccessToken: string;
let bertHintForOther: string;

async function tokensFor(client: { clientId: string; secret: string }, session: TestSession) {
  const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie, scope: SCOPES.join(' ') });
  const response = await tokenRequest(t, {
    grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id_token: string; access_token: string };
}

function subOf(idToken: string): string {
  return JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString()).sub as string;
}

beforeAll(async () => {
  [anna, bert] = [await makeUser(t.db, { firstName: 'Anna' }), await makeUser(t.db, { firstName: 'Bert' })];
  [annaSession, bertSession] = [await logInAs(t.app, anna), await logInAs(t.app, bert)];
  app = (await makeClient(t, { scopes: SCOPES })) as typeof app;
  other = (await makeClient(t, { scopes: SCOPES })) as typeof other;
  for (const member of [anna, bert]) {
    for (const client of [app, other]) await rememberConsent(t.db, member.id, (await findClientRow(t.db, client.clientId))!.id, SCOPES, t.clock.now());
  }
  annaHint = (await tokensFor(app, annaSession)).id_token;
  const bertTokens = await tokensFor(app, bertSession);
  [bertHint, bertAccessToken] = [bertTokens.id_token, bertTokens.access_token];
  bertHintForOther = (await tokensFor(other, bertSession)).id_token;
});

function params(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: 'code', client_id: app.clientId, redirect_uri: CALLBACK, scope: SCOPES.join(' '), state: 'xyz',
    code_challenge: CHALLENGE, code_challenge_method: 'S256', ...overrides,
  };
}

function authorize(p: Record<string, string>, cookie: string | null, method: 'GET' | 'POST' = 'GET') {
  const query = new URLSearchParams(p).toString();
  const headers: Record<string, string> = { 'accept-language': 'en', ...(cookie === null ? {} : { cookie }) };
  return t.app.inject(method === 'GET'
    ? { method, url: `/oauth/authorize?${query}`, headers }
    : { method, url: '/oauth/authorize', payload: query, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
}

/** The parameters of a redirect to the client's callback. */
function callbackParams(response: { statusCode: number; headers: Record<string, unknown> }): Record<string, string> {
  expect(response.statusCode).toBe(303);
  const location = response.headers.location as string;
  expect(location.startsWith(`${CALLBACK}?`), location).toBe(true);
  return Object.fromEntries(new URL(location).searchParams);
}

/** The request a redirect to /login carries back, as parameters. */
function loginReturn(response: { statusCode: number; headers: Record<string, unknown> }): { returnTo: string; params: Record<string, string> } {
  expect(response.statusCode).toBe(303);
  const location = new URL(response.headers.location as string, ISSUER);
  expect(location.pathname).toBe('/login');
  const returnTo = location.searchParams.get('return_to')!;
  return { returnTo, params: Object.fromEntries(new URL(returnTo, ISSUER).searchParams) };
}

async function storedCodes(): Promise<number> {
  const row = await t.db.selectFrom('oauth_codes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function exchange(code: string): Promise<string> {
  const response = await tokenRequest(t, {
    grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: app.clientId, client_secret: app.secret,
  });
  expect(response.statusCode, response.body).toBe(200);
  return subOf((response.json() as { id_token: string }).id_token);
}

/** The browser holding `cookie` logs `member` in through the /login form on its way to `returnTo`, and follows it back. */
async function logInOnTheWay(cookie: string, returnTo: string, member: TestUser) {
  const page = await t.app.inject({ method: 'GET', url: `/login?return_to=${encodeURIComponent(returnTo)}`, headers: { cookie } });
  expect(page.statusCode).toBe(200);
  const cookies = [cookie, ...page.cookies.map((c) => `${c.name}=${c.value}`)].join('; ');
  const login = await t.app.inject({
    method: 'POST', url: '/login', headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...formFields(page.body), email: member.email, password: member.password }).toString(),
  });
  expect(login.statusCode).toBe(303);
  expect(login.headers.location).toBe(returnTo);
  const session = login.cookies.filter((c) => c.name === 'fs_session').map((c) => `${c.name}=${c.value}`).join('; ');
  return t.app.inject({ method: 'GET', url: returnTo, headers: { cookie: session } });
}

describe('a hint naming the logged-in member', () => {
  test('changes nothing: prompt=none gets a code for that member, GET and POST', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const p = callbackParams(await authorize(params({ prompt: 'none', id_token_hint: annaHint }), annaSession.cookie, method));
      expect(p).toEqual({ code: expect.any(String), state: 'xyz', iss: ISSUER });
      expect(await exchange(p.code!)).toBe(String(anna.id));
    }
  });

  test('an empty id_token_hint is none', async () => {
    const p = callbackParams(await authorize(params({ prompt: 'none', id_token_hint: '' }), annaSession.cookie));
    expect(await exchange(p.code!)).toBe(String(anna.id));
  });
});

describe('a hint naming another member', () => {
  test('prompt=none: login_required to the client with state and iss, and no code stored, GET and POST', async () => {
    const before = await storedCodes();
    for (const method of ['GET', 'POST'] as const) {
      const p = callbackParams(await authorize(params({ prompt: 'none', id_token_hint: bertHint }), annaSession.cookie, method));
      expect(p).toEqual({ error: 'login_required', error_description: OTHER_MEMBER, state: 'xyz', iss: ISSUER });
    }
    expect(await storedCodes()).toBe(before);
  });

  test('without prompt=none: the login form, the member still logged in; the hinted member\'s login gets their code', async () => {
    const browser = await logInAs(t.app, anna);
    const before = await storedCodes();
    const { returnTo, params: back } = loginReturn(await authorize(params({ id_token_hint: bertHint }), browser.cookie));
    expect(back).toEqual({ ...params({ id_token_hint: bertHint }), login_after: expect.stringMatching(/^\d+\.[A-Za-z0-9_-]{22}$/) });
    expect(await storedCodes()).toBe(before);
    // Asked, not signed out.
    const current = await t.app.inject({ method: 'GET', url: '/api/user/current', headers: { cookie: browser.cookie } });
    expect(current.statusCode).toBe(200);

    const p = callbackParams(await logInOnTheWay(browser.cookie, returnTo, bert));
    expect(p).toEqual({ code: expect.any(String), state: 'xyz', iss: ISSUER });
    expect(await exchange(p.code!)).toBe(String(bert.id));
  });

  test('a login for the request that brings yet another member: login_required, no code, no second round', async () => {
    const browser = await logInAs(t.app, anna);
    const { returnTo } = loginReturn(await authorize(params({ id_token_hint: bertHint }), browser.cookie));
    const before = await storedCodes();
    const p = callbackParams(await logInOnTheWay(browser.cookie, returnTo, anna));
    expect(p).toEqual({ error: 'login_required', error_description: OTHER_MEMBER, state: 'xyz', iss: ISSUER });
    expect(await storedCodes()).toBe(before);
  });

  test('not logged in: to /login marked for the login, as for any request', async () => {
    const { returnTo, params: back } = loginReturn(await authorize(params({ id_token_hint: bertHint }), null));
    expect(back.login_after).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    const p = callbackParams(await logInOnTheWay('', returnTo, bert));
    expect(await exchange(p.code!)).toBe(String(bert.id));
  });
});

describe('the sub value of the claims parameter (OpenID Connect Core §5.5.1)', () => {
  const OTHER_CLAIMED = 'The logged-in user is not the one the sub value of the claims parameter names.';
  const claimsFor = (member: TestUser) => JSON.stringify({ id_token: { sub: { value: String(member.id) }, email: null } });

  test('naming the logged-in member changes nothing: prompt=none gets their code, GET and POST', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const p = callbackParams(await authorize(params({ prompt: 'none', claims: claimsFor(anna) }), annaSession.cookie, method));
      expect(p).toEqual({ code: expect.any(String), state: 'xyz', iss: ISSUER });
      expect(await exchange(p.code!)).toBe(String(anna.id));
    }
  });

  test('naming another member: login_required under prompt=none, else the login form; only that member\'s login gets a code', async () => {
    const before = await storedCodes();
    for (const method of ['GET', 'POST'] as const) {
      const p = callbackParams(await authorize(params({ prompt: 'none', claims: claimsFor(bert) }), annaSession.cookie, method));
      expect(p).toEqual({ error: 'login_required', error_description: OTHER_CLAIMED, state: 'xyz', iss: ISSUER });
    }
    expect(await storedCodes()).toBe(before);

    const browser = await logInAs(t.app, anna);
    const { returnTo, params: back } = loginReturn(await authorize(params({ claims: claimsFor(bert) }), browser.cookie));
    expect(back.login_after).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    expect(await storedCodes()).toBe(before);
    const wrong = callbackParams(await logInOnTheWay(browser.cookie, returnTo, anna));
    expect(wrong).toEqual({ error: 'login_required', error_description: OTHER_CLAIMED, state: 'xyz', iss: ISSUER });
    expect(await storedCodes()).toBe(before);
    const right = callbackParams(await logInOnTheWay(browser.cookie, returnTo, bert));
    expect(await exchange(right.code!)).toBe(String(bert.id));
  });

  test('a client the member has not allowed learns nothing of who is signed in: the same answer for every sub named', async () => {
    const stranger = (await makeClient(t, { scopes: SCOPES })) as { clientId: string; secret: string };
    const before = await storedCodes();
    for (const named of [anna, bert]) {
      const p = callbackParams(await authorize(params({ client_id: stranger.clientId, prompt: 'none', claims: claimsFor(named) }), annaSession.cookie));
      expect(p).toEqual({ error: 'consent_required', error_description: 'The user has not consented to this request.', state: 'xyz', iss: ISSUER });
    }
    // Without prompt=none, the consent page for either; allowing it, the claim is answered (another member: a login).
    const page = await authorize(params({ client_id: stranger.clientId, claims: claimsFor(bert) }), annaSession.cookie);
    expect(page.statusCode).toBe(200);
    const decided = await authorize({ ...formFields(page.body), decision: 'allow' }, annaSession.cookie, 'POST');
    expect(loginReturn(decided).params.login_after).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    expect(await storedCodes()).toBe(before);
  });

  test('with an id_token_hint: the same member passes, different members are invalid_request; a malformed sub member too', async () => {
    const same = callbackParams(await authorize(params({ prompt: 'none', claims: claimsFor(anna), id_token_hint: annaHint }), annaSession.cookie));
    expect(await exchange(same.code!)).toBe(String(anna.id));
    const before = await storedCodes();
    for (const [claims, description] of [
      [claimsFor(bert), 'The id_token_hint and the sub value of the claims parameter name different members.'],
      [JSON.stringify({ id_token: { sub: String(anna.id) } }), 'The sub member of the claims parameter must be null or a JSON object.'],
      [JSON.stringify({ id_token: { sub: { value: anna.id } } }), 'The sub value in the claims parameter must be a string.'],
    ] as const) {
      const p = callbackParams(await authorize(params({ claims, id_token_hint: annaHint }), annaSession.cookie));
      expect(p).toEqual({ error: 'invalid_request', error_description: description, state: 'xyz', iss: ISSUER });
    }
    expect(await storedCodes()).toBe(before);
  });
});

describe('a hint that is no ID token of ours for this client', () => {
  test('invalid_request to the client with state and iss, no code stored, logged in or not', async () => {
    const [header, payload, signature] = bertHint.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const altered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: String(anna.id) })).toString('base64url')}.${signature}`;
    const before = await storedCodes();
    for (const [name, hint] of [['not a JWT', 'not-a-jwt'], ['altered', altered], ['an access token', bertAccessToken], ['issued to another client', bertHintForOther]]) {
      for (const cookie of [annaSession.cookie, bertSession.cookie, null]) {
        const p = callbackParams(await authorize(params({ id_token_hint: hint! }), cookie));
        expect(p, name).toEqual({ error: 'invalid_request', error_description: 'Invalid id_token_hint.', state: 'xyz', iss: ISSUER });
      }
    }
    expect(await storedCodes()).toBe(before);
  });
});

describe('pushed authorization requests', () => {
  function push(form: Record<string, string>) {
    const { client_id: _clientId, ...rest } = form;
    return t.app.inject({
      method: 'POST', url: '/oauth/par', payload: new URLSearchParams(rest).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.secret}`).toString('base64')}`,
      },
    });
  }

  async function storedRequests(): Promise<number> {
    const row = await t.db.selectFrom('oauth_pushed_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  test('a hint that does not verify is refused at the push: 400 invalid_request, nothing stored', async () => {
    const before = await storedRequests();
    for (const hint of ['not-a-jwt', bertHintForOther]) {
      const response = await push(params({ id_token_hint: hint }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'Invalid id_token_hint.' });
    }
    expect(await storedRequests()).toBe(before);
  });

  test('a pushed hint is compared with the session when the request_uri comes back, and never rides the front channel', async () => {
    const pushedUri = async (extra: Record<string, string>) => {
      const response = await push(params({ id_token_hint: bertHint, ...extra }));
      expect(response.statusCode, response.body).toBe(201);
      return (response.json() as { request_uri: string }).request_uri;
    };
    const byReference = (requestUri: string) => ({ client_id: app.clientId, request_uri: requestUri });
    const before = await storedCodes();
    const silent = callbackParams(await authorize(byReference(await pushedUri({ prompt: 'none' })), annaSession.cookie));
    expect(silent).toEqual({ error: 'login_required', error_description: OTHER_MEMBER, state: 'xyz', iss: ISSUER });
    expect(await storedCodes()).toBe(before);

    const browser = await logInAs(t.app, anna);
    const { returnTo, params: back } = loginReturn(await authorize(byReference(await pushedUri({})), browser.cookie));
    expect(Object.keys(back).sort()).toEqual(['client_id', 'request_uri']);
    const p = callbackParams(await logInOnTheWay(browser.cookie, returnTo, bert));
    expect(await exchange(p.code!)).toBe(String(bert.id));
  });
});

describe('an expired hint', () => {
  test('is still a hint: the named member gets a code, another gets login_required', async () => {
    t.clock.advance(ID_TOKEN_SECONDS + 60);
    expect(JSON.parse(Buffer.from(bertHint.split('.')[1]!, 'base64url').toString()).exp).toBeLessThan(t.clock.now().getTime() / 1000);
    const [fresh, annaNow] = [await logInAs(t.app, bert), await logInAs(t.app, anna)];
    const p = callbackParams(await authorize(params({ prompt: 'none', id_token_hint: bertHint }), fresh.cookie));
    expect(await exchange(p.code!)).toBe(String(bert.id));
    const refused = callbackParams(await authorize(params({ prompt: 'none', id_token_hint: bertHint }), annaNow.cookie));
    expect(refused).toEqual({ error: 'login_required', error_description: OTHER_MEMBER, state: 'xyz', iss: ISSUER });
  });
});
