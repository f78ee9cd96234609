/**
 * The authorization endpoint's checks in the order of SPEC
 * §5.2 (GET and POST), the login round trip, the region restriction, consent.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, formFields, makeClient } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const ISSUER = 'http://localhost:8080';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSW-cM1Y';
/** A login marker as the server writes it: the second, a dot, a MAC (oauth/login-marker.ts). */
const MARKER = /^\d+\.[A-Za-z0-9_-]{22}$/;

const t = useTestApp();
let user: TestUser;
let session: TestSession;
let confidential: string;
let publicClient: string;

beforeAll(async () => {
  user = await makeUser(t.db);
  session = await logInAs(t.app, user);
  confidential = (await makeClient(t, { redirectUris: [CALLBACK, 'https://app.example/cb?x=1'], scopes: ['openid', 'profile'] })).clientId;
  publicClient = (await makeClient(t, { confidential: false })).clientId;
});

function params(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    response_type: 'code', client_id: confidential, redirect_uri: CALLBACK, scope: 'openid profile', state: 'xyz',
    code_challenge: CHALLENGE, code_challenge_method: 'S256', ...overrides,
  };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

async function authorize(p: Record<string, string>, method: 'GET' | 'POST' = 'GET', cookie: string | null = session.cookie, raw?: string) {
  const query = raw ?? new URLSearchParams(p).toString();
  return t.app.inject(method === 'GET'
    ? { method, url: `/oauth/authorize?${query}`, headers: { 'accept-language': 'en', ...(cookie ? { cookie } : {}) } }
    : { method, url: '/oauth/authorize', payload: query, headers: { 'accept-language': 'en', 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) } });
}

/** The binding English messages ("Invalid redirect_uri") are asserted here; test/web/german-error-pages.test.ts has the German ones. */
/**
 * Without a session, a POSTed request is answered with the same request as a GET (a client's
 * cross-site POST does not carry the SameSite=Lax session cookie; the GET navigation does).
 */
async function authorizeLoggedOut(p: Record<string, string>, method: 'GET' | 'POST') {
  const response = await authorize(p, method, null);
  if (method === 'GET') return response;
  expect(response.statusCode).toBe(303);
  const location = new URL(response.headers.location as string, ISSUER);
  expect(location.pathname).toBe('/oauth/authorize');
  expect(Object.fromEntries(location.searchParams)).toEqual(p);
  return authorize(Object.fromEntries(location.searchParams), 'GET', null);
}

/**
 * Logs `user` in through the /login form with `returnTo`, checks that the login sends the
 * browser there, and follows that redirect after `delaySeconds` (the answer, with the new session's cookie).
 */
async function logInAndReturn(returnTo: string, delaySeconds: number) {
  const page = await t.app.inject({ method: 'GET', url: `/login?return_to=${encodeURIComponent(returnTo)}` });
  const cookies = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const login = await t.app.inject({
    method: 'POST', url: '/login', headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...formFields(page.body), email: user.email, password: user.password }).toString(),
  });
  expect(login.statusCode).toBe(303);
  expect(login.headers.location).toBe(returnTo);
  const sessionCookie = login.cookies.filter((c) => c.name === 'fs_session').map((c) => `${c.name}=${c.value}`).join('; ');
  t.clock.advance(delaySeconds);
  return Object.assign(await t.app.inject({ method: 'GET', url: returnTo, headers: { cookie: sessionCookie } }), { sessionCookie });
}

async function codesOfUser(): Promise<number> {
  return (await t.db.selectFrom('oauth_codes').select('code_digest').where('user_id', '=', user.id).execute()).length;
}

function redirectParams(location: string | undefined): Record<string, string> {
  expect(location).toBeDefined();
  expect(location!.startsWith(`${CALLBACK}?`)).toBe(true);
  return Object.fromEntries(new URL(location!).searchParams);
}

describe.each(['GET', 'POST'] as const)('%s /oauth/authorize', (method) => {
  test('popup sign-in keeps its opener (no COOP same-origin); framing stays forbidden', async () => {
    for (const response of [await authorize(params(), method), await authorize(params(), method, null), await authorize(params({ client_id: 'nope' }), method)]) {
      expect(response.headers['cross-origin-opener-policy']).toBe('unsafe-none');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    }
  });

  test('unknown or missing client_id: error page 400, no redirect', async () => {
    for (const clientId of ['nope', undefined, '']) {
      const response = await authorize(params({ client_id: clientId }), method);
      expect(response.statusCode).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.body).toContain('Invalid client_id');
    }
  });

  test('redirect_uri one character off, trailing slash, other scheme, missing: "Invalid redirect_uri" page', async () => {
    for (const uri of ['http://127.0.0.1:3000/callbacc', `${CALLBACK}/`, 'https://127.0.0.1:3000/callback', 'HTTP://127.0.0.1:3000/callback', undefined, '']) {
      const response = await authorize(params({ redirect_uri: uri }), method);
      expect(response.statusCode).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain('Invalid redirect_uri');
    }
  });

  test('a bad redirect_uri is reported even when later parameters are bad too', async () => {
    const response = await authorize(params({ redirect_uri: 'https://evil.example/cb', response_type: 'token', scope: 'x' }), method);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Invalid redirect_uri');
  });

  test('later errors redirect with error, error_description, state and iss', async () => {
    const cases: [Record<string, string | undefined>, string, string?][] = [
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ response_type: undefined }, 'invalid_request'],
      [{ scope: 'profile' }, 'invalid_scope'],
      [{ scope: undefined }, 'invalid_scope'],
      [{ scope: 'openid bogus' }, 'invalid_scope'],
      [{ scope: 'openid email' }, 'invalid_scope'],
      [{ code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method must be S256.'],
      [{ code_challenge_method: undefined }, 'invalid_request'],
      [{ code_challenge: 'too-short' }, 'invalid_request', 'code_challenge is malformed.'],
      [{ prompt: 'none login' }, 'invalid_request'],
    ];
    for (const [overrides, error, description] of cases) {
      const response = await authorize(params(overrides), method);
      expect(response.statusCode, JSON.stringify(overrides)).toBe(303);
      const p = redirectParams(response.headers.location as string);
      expect(p.error, JSON.stringify(overrides)).toBe(error);
      expect(p.error_description).toBeTruthy();
      if (description) expect(p.error_description).toBe(description);
      expect(p.state).toBe('xyz');
      expect(p.iss).toBe(ISSUER);
    }
  });

  test('a public client without code_challenge gets "Code challenge required"', async () => {
    const response = await authorize(params({ client_id: publicClient, code_challenge: undefined, code_challenge_method: undefined }), method);
    const p = redirectParams(response.headers.location as string);
    expect(p).toEqual({ error: 'invalid_request', error_description: 'Code challenge required', state: 'xyz', iss: ISSUER });
  });

  test('a parameter sent without a value counts as omitted (RFC 6749 §3.1): an empty code_challenge is none', async () => {
    const response = await authorize(params({ client_id: publicClient, code_challenge: '' }), method);
    const p = redirectParams(response.headers.location as string);
    expect(p).toEqual({ error: 'invalid_request', error_description: 'Code challenge required', state: 'xyz', iss: ISSUER });
  });

  test('state is optional and echoed byte-for-byte (128 characters)', async () => {
    const state = `${'aZ09-._~+/= &?%#é'.repeat(8)}`.slice(0, 128);
    expect(state.length).toBe(128);
    const withState = redirectParams((await authorize(params({ state, response_type: 'token' }), method)).headers.location as string);
    expect(withState.state).toBe(state);
    const withoutState = redirectParams((await authorize(params({ state: undefined, response_type: 'token' }), method)).headers.location as string);
    expect('state' in withoutState).toBe(false);
  });

  test('an unknown scope is echoed only in the error_description charset of RFC 6749 §4.1.2.1', async () => {
    const p = redirectParams((await authorize(params({ scope: 'openid "x\\y\u00e9<b>' }), method)).headers.location as string);
    expect(p).toMatchObject({ error: 'invalid_scope', error_description: 'Unknown scope: ?x?y?<b>', state: 'xyz', iss: ISSUER });
  });

  test('repeated parameters are refused', async () => {
    const raw = `${new URLSearchParams(params()).toString()}&scope=openid`;
    const p = redirectParams((await authorize({}, method, session.cookie, raw)).headers.location as string);
    expect(p.error).toBe('invalid_request');
  });

  test('prompt=none: login_required when logged out, consent_required without consent', async () => {
    const loggedOut = redirectParams((await authorizeLoggedOut(params({ prompt: 'none' }), method)).headers.location as string);
    expect(loggedOut).toMatchObject({ error: 'login_required', state: 'xyz', iss: ISSUER });
    const noConsent = redirectParams((await authorize(params({ prompt: 'none' }), method)).headers.location as string);
    expect(noConsent).toMatchObject({ error: 'consent_required', state: 'xyz', iss: ISSUER });
  });

  test('step 3 comes before the login: a logged-out user\'s bad request goes back to the client, not to /login', async () => {
    const response = await authorize(params({ response_type: 'token' }), method, null);
    expect(response.statusCode).toBe(303);
    expect(redirectParams(response.headers.location as string)).toEqual({
      error: 'unsupported_response_type', error_description: 'Only response_type=code is supported.', state: 'xyz', iss: ISSUER,
    });
    const publicWithout = await authorize(params({ client_id: publicClient, code_challenge: undefined, code_challenge_method: undefined }), method, null);
    expect(redirectParams(publicWithout.headers.location as string)).toMatchObject({ error: 'invalid_request', error_description: 'Code challenge required' });
  });

  test('step 3 in the order of SPEC §5.2: response_type, then scope, then PKCE', async () => {
    const first = async (overrides: Record<string, string | undefined>) =>
      redirectParams((await authorize(params(overrides), method)).headers.location as string).error;
    expect(await first({ response_type: 'token', scope: 'openid bogus', code_challenge_method: 'plain' })).toBe('unsupported_response_type');
    expect(await first({ scope: 'openid bogus', code_challenge_method: 'plain' })).toBe('invalid_scope');
    expect(await first({ scope: 'profile', client_id: publicClient, code_challenge: undefined, code_challenge_method: undefined })).toBe('invalid_scope');
    expect(await first({ code_challenge_method: 'plain' })).toBe('invalid_request');
  });

  test('not logged in: to /login and, after login, straight back to the same request', async () => {
    const response = await authorizeLoggedOut(params({ state: 'a b&c' }), method);
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string, ISSUER);
    expect(location.pathname).toBe('/login');
    const returnTo = location.searchParams.get('return_to')!;
    expect(Object.fromEntries(new URL(returnTo, ISSUER).searchParams)).toEqual(params({ state: 'a b&c' }));
    const back = await logInAndReturn(returnTo, 0);
    expect(back.statusCode).toBe(200);
    expect(back.body).toContain('name="decision"');
  });
});

describe('re-authentication (OpenID Connect Core §3.1.2.1)', () => {
  test('prompt=login sends a logged-in user to /login; the request comes back marked so that the fresh login satisfies it', async () => {
    // The clock runs: the marker is the second the request was answered in, read before and after it.
    const seconds = () => Math.floor(t.clock.now().getTime() / 1000);
    const sent = seconds();
    const response = await authorize(params({ prompt: 'login consent' }));
    const answered = seconds();
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string, ISSUER);
    expect(location.pathname).toBe('/login');
    const returnTo = location.searchParams.get('return_to')!;
    const back = Object.fromEntries(new URL(returnTo, ISSUER).searchParams);
    expect(back).toMatchObject({ prompt: 'login consent', login_after: expect.stringMatching(MARKER), client_id: confidential });
    expect(Number(back.login_after!.split('.')[0])).toBeGreaterThanOrEqual(sent);
    expect(Number(back.login_after!.split('.')[0])).toBeLessThanOrEqual(answered);
    expect(back.max_age).toBeUndefined();
    // A slow way back (a mobile network, a password manager) does not loop back to /login.
    const consentPage = await logInAndReturn(returnTo, 5);
    expect(consentPage.statusCode).toBe(200);
    expect(consentPage.body).toContain('name="decision"');
  });

  test('prompt=select_account sends a logged-in user to /login to choose the account, not straight back with a code', async () => {
    const response = await authorize(params({ prompt: 'select_account' }));
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string, ISSUER);
    expect(location.pathname).toBe('/login');
    const back = Object.fromEntries(new URL(location.searchParams.get('return_to')!, ISSUER).searchParams);
    expect(back).toMatchObject({ prompt: 'select_account', login_after: expect.stringMatching(MARKER), client_id: confidential });
    const consentPage = await logInAndReturn(location.searchParams.get('return_to')!, 2);
    expect(consentPage.statusCode).toBe(200);
    expect(consentPage.body).toContain('name="decision"');
  });

  test.each(['login', 'select_account'])('prompt=%s: the marked request opened again without the login it asks for goes to /login again', async (prompt) => {
    const fresh = await logInAs(t.app, user);
    t.clock.advance(2);
    const codesBefore = await codesOfUser();
    const first = await authorize(params({ prompt }), 'GET', fresh.cookie);
    const returnTo = new URL(first.headers.location as string, ISSUER).searchParams.get('return_to')!;
    t.clock.advance(1);
    // The login page left aside: the session's login is older than the marker.
    const again = await t.app.inject({ method: 'GET', url: returnTo, headers: { cookie: fresh.cookie } });
    expect(again.statusCode).toBe(303);
    expect(new URL(again.headers.location as string, ISSUER).pathname).toBe('/login');
    expect(await codesOfUser()).toBe(codesBefore);
  });

  test('the consent decision is held to the fresh login too: a posted decision with an older login goes to /login, nothing issued', async () => {
    const fresh = await logInAs(t.app, user);
    const { csrfToken } = fresh;
    t.clock.advance(3);
    const codesBefore = await codesOfUser();
    for (const asked of [{ prompt: 'login' }, { max_age: '0' }, { max_age: '2' }]) {
      const response = await authorize({ ...params(asked), decision: 'allow', csrf_token: csrfToken }, 'POST', fresh.cookie);
      expect(response.statusCode).toBe(303);
      expect(new URL(response.headers.location as string, ISSUER).pathname).toBe('/login');
    }
    expect(await codesOfUser()).toBe(codesBefore);
    // Through the login it asks for, the form's decision is taken.
    const first = await authorize(params({ prompt: 'login', max_age: '0' }), 'GET', fresh.cookie);
    const consentPage = await logInAndReturn(new URL(first.headers.location as string, ISSUER).searchParams.get('return_to')!, 2);
    expect(consentPage.statusCode).toBe(200);
    const fields = formFields(consentPage.body);
    expect(fields).toMatchObject({ prompt: 'login', max_age: '0', login_after: expect.stringMatching(MARKER) });
    const decided = await authorize({ ...fields, decision: 'allow' }, 'POST', consentPage.sessionCookie);
    expect(decided.statusCode).toBe(303);
    expect(redirectParams(decided.headers.location)).toMatchObject({ code: expect.any(String), state: 'xyz' });
  });

  test('max_age=0 from the client: satisfied by the login it causes, even seconds later', async () => {
    const response = await authorize(params({ max_age: '0' }));
    const returnTo = new URL(response.headers.location as string, ISSUER).searchParams.get('return_to')!;
    expect(Object.fromEntries(new URL(returnTo, ISSUER).searchParams)).toMatchObject({ max_age: '0', login_after: expect.stringMatching(MARKER) });
    expect((await logInAndReturn(returnTo, 3)).statusCode).toBe(200);
  });

  test('the login marker only counts a login made after it, and only while it is recent', async () => {
    const fresh = await logInAs(t.app, user);
    const toLogin = async (p: Record<string, string>) => new URL((await authorize(params(p), 'GET', fresh.cookie)).headers.location as string, ISSUER).pathname;
    const markerOf = async (p: Record<string, string>) => {
      const response = await authorize(params(p), 'GET', fresh.cookie);
      return new URL(new URL(response.headers.location as string, ISSUER).searchParams.get('return_to')!, ISSUER).searchParams.get('login_after')!;
    };
    // A marker written after the session's login: prompt=login still asks for a login.
    t.clock.advance(10);
    const later = await markerOf({ prompt: 'login' });
    expect(await toLogin({ prompt: 'login', login_after: later })).toBe('/login');
    // A marker of the server's own older than an hour counts as none.
    const session = await logInAs(t.app, user);
    t.clock.advance(3601);
    expect(new URL((await authorize(params({ max_age: '0', login_after: later }), 'GET', session.cookie)).headers.location as string, ISSUER).pathname).toBe('/login');
  });

  test('a marker counts only as this server wrote it, and for its own client (OpenID Connect Core §3.1.2.1)', async () => {
    const fresh = await logInAs(t.app, user);
    t.clock.advance(3);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const path = async (p: Record<string, string>) => new URL((await authorize(params(p), 'GET', fresh.cookie)).headers.location as string, ISSUER).pathname;
    // Forged: an earlier second, bare or with a made-up MAC, would make the login of 3 s ago count as one made for the request.
    for (const forged of ['0', String(now - 600), `${now - 600}.AAAAAAAAAAAAAAAAAAAAAA`]) {
      expect(await path({ max_age: '0', login_after: forged })).toBe('/login');
      expect(await path({ prompt: 'login', login_after: forged })).toBe('/login');
    }
    // A marker the server wrote for another client's request.
    const other = (await makeClient(t, { redirectUris: [CALLBACK], scopes: ['openid', 'profile'] })).clientId;
    const otherLogin = await authorize(params({ client_id: other, max_age: '0' }), 'GET', null);
    const otherMarker = new URL(new URL(otherLogin.headers.location as string, ISSUER).searchParams.get('return_to')!, ISSUER).searchParams.get('login_after')!;
    expect(otherMarker).toMatch(MARKER);
    const session = await logInAs(t.app, user);
    t.clock.advance(2);
    expect(new URL((await authorize(params({ max_age: '0', login_after: otherMarker }), 'GET', session.cookie)).headers.location as string, ISSUER).pathname).toBe('/login');
    // The same marker, for its own client, is satisfied by that login.
    expect((await authorize(params({ client_id: other, max_age: '0', login_after: otherMarker }), 'GET', session.cookie)).statusCode).toBe(200);
  });

  test('max_age: an older login is sent to /login, a recent one passes', async () => {
    const fresh = await logInAs(t.app, user);
    expect((await authorize(params({ max_age: '60' }), 'GET', fresh.cookie)).statusCode).toBe(200);
    t.clock.advance(61);
    const stale = await authorize(params({ max_age: '60' }), 'GET', fresh.cookie);
    expect(stale.statusCode).toBe(303);
    expect(new URL(stale.headers.location as string, ISSUER).pathname).toBe('/login');
    const none = await authorize(params({ max_age: '60', prompt: 'none' }), 'GET', fresh.cookie);
    expect(redirectParams(none.headers.location as string).error).toBe('login_required');
  });
});

describe('POST /oauth/authorize takes a form only (OpenID Connect Core §3.1.2.1)', () => {
  test('a JSON, text or malformed body: 400 page before the body is read, no code stored', async () => {
    const codesBefore = await t.db.selectFrom('oauth_codes').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const bodies = [
      { 'content-type': 'application/json', payload: JSON.stringify(params()) },
      { 'content-type': 'application/json', payload: '[1,2' },
      { 'content-type': 'text/plain', payload: new URLSearchParams(params()).toString() },
    ];
    for (const { payload, ...headers } of bodies) {
      const response = await t.app.inject({ method: 'POST', url: '/oauth/authorize', payload, headers: { ...headers, 'accept-language': 'en', cookie: session.cookie } });
      expect(response.statusCode).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.body).toContain('The request body must be application/x-www-form-urlencoded');
    }
    const codesAfter = await t.db.selectFrom('oauth_codes').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(codesAfter.n).toBe(codesBefore.n);
    // The same request as a form is served: the consent page.
    const form = await authorize(params(), 'POST');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('Allow access?');
  });
});
