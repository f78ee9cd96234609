/**
 * Generated hostile input (fast-check) against the OAuth endpoints —
 * authorize (GET and the consent POST), token, userinfo, revoke, introspect,
 * device authorization and its /device pages — and the
 * login page and JSON login: every parameter valid, wrong, missing or junk,
 * client authentication right, wrong or malformed, as anonymous, as the member
 * with a remembered consent and as another member. Valid codes and refresh
 * tokens are minted beforehand and each is sent at most once (a second use is
 * reuse, and revoking the grant on reuse is a write on purpose, RFC 6749
 * §4.1.2, RFC 9700 §4.14.2). Never a 5xx, never a hang, and a refusal (4xx,
 * or an error redirect) changes no table but the failed-login counters.
 * Fixed seed; FC_SEED and FC_RUNS explore more.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { DEMO_CLIENT_SECRET } from '../../src/demo/demo-oauth.ts';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { encode, headerValue, junkString, queryString } from '../helpers/hostile-arbitraries.ts';
import { HostileProbe } from '../helpers/hostile-probe.ts';
import { CALLBACK, formFields, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const SEED = Number(process.env.FC_SEED ?? 20_261_122);
const RUNS = Number(process.env.FC_RUNS ?? 40);
/** Far above the default runs' time on a busy machine; more runs get more time. */
const TIMEOUT_MS = 120_000 * Math.max(1, RUNS / 40);
const FORM = 'application/x-www-form-urlencoded';
const SPA_CALLBACK = 'http://127.0.0.1:5173/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSW-cM1Y';

const t = useTestApp();
let probe: HostileProbe;
const sessions: Record<string, TestSession> = {};
let accessToken = '';
/** Each used at most once: codes for the token endpoint, refresh tokens for it and for revocation. */
const fresh = { codes: [] as string[], refreshTokens: [] as string[], revocable: [] as string[], deviceCodes: [] as string[], userCodes: [] as string[] };
const DEVICE_CLIENT = 'hostile-device';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function mintRefreshToken(): Promise<{ refresh: string; access: string }> {
  const code = await obtainCode(t, { clientId: 'demo-app', cookie: sessions.foodsaver!.cookie });
  const r = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: 'demo-app', client_secret: DEMO_CLIENT_SECRET });
  return { refresh: r.json().refresh_token, access: r.json().access_token };
}

beforeAll(async () => {
  await loadDemoData(t.db, t.keys);
  for (const name of ['foodsaver', 'koeln']) sessions[name] = await logInAs(t.app, { email: `${name}@example.org`, password: DEMO_PASSWORD });
  // The foodsaver's consent for demo-app is remembered: authorization requests mint codes at once.
  const query = new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: CALLBACK, scope: 'openid profile email regions', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
  const page = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: sessions.foodsaver!.cookie } });
  await t.app.inject({ method: 'POST', url: '/oauth/authorize', headers: { cookie: sessions.foodsaver!.cookie, 'content-type': FORM }, payload: new URLSearchParams({ ...formFields(page.body), decision: 'allow', remember: '1' }).toString() });
  // About a third of the runs ask for a fresh one; more than that are minted.
  for (let i = 0; i < Math.ceil(RUNS / 2); i++) {
    fresh.codes.push(await obtainCode(t, { clientId: 'demo-app', cookie: sessions.foodsaver!.cookie }));
    fresh.refreshTokens.push((await mintRefreshToken()).refresh);
    const revocable = await mintRefreshToken();
    fresh.revocable.push(i % 2 === 0 ? revocable.refresh : revocable.access);
  }
  accessToken = (await mintRefreshToken()).access;
  await createClient(t.db, t.keys, {
    clientId: DEVICE_CLIENT, name: 'Device', confidential: false, redirectUris: [CALLBACK], scopes: ['profile'], grantTypes: [DEVICE_GRANT], requiredRegions: [],
  });
  for (let i = 0; i < RUNS; i++) {
    const started = await t.app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: { 'content-type': FORM }, payload: `client_id=${DEVICE_CLIENT}&scope=openid` });
    fresh.deviceCodes.push(started.json().device_code);
    fresh.userCodes.push(started.json().user_code);
  }
  probe = await HostileProbe.start(t);
}, TIMEOUT_MS);
afterAll(async () => {
  process.stdout.write(`generated hostile requests against the OAuth endpoints and logins: ${probe.describe()}\n`);
});

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 4 });
const oneOf = (...values: string[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: junkString });
const FORGED = [`${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"1","jti":"1.x","scope":"openid","client_id":"demo-app"}').toString('base64url')}.`,
  'eyJhbGciOiJIUzI1NiJ9.e30.x', 'a.b.c.d.e'];

/** Client authentication: right, wrong or malformed, in the body or as Basic. */
const clientAuth = fc.constantFrom('post', 'post-wrong', 'basic', 'basic-wrong', 'basic-junk', 'public', 'none', 'both');
function authenticate(kind: string, form: Record<string, string>, headers: Record<string, string>): void {
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  if (kind === 'post' || kind === 'both') Object.assign(form, { client_id: 'demo-app', client_secret: DEMO_CLIENT_SECRET });
  if (kind === 'post-wrong') Object.assign(form, { client_id: 'demo-app', client_secret: 'wrong' });
  if (kind === 'basic' || kind === 'both') headers.authorization = basic('demo-app', DEMO_CLIENT_SECRET);
  if (kind === 'basic-wrong') headers.authorization = basic('demo-app', 'x');
  if (kind === 'basic-junk') headers.authorization = 'Basic %%%';
  if (kind === 'public') form.client_id = 'demo-spa';
}

/** Pairs with some fields undefined (left out), as a form or query string; sometimes a junk extra pair. */
function fields(record: Record<string, string | undefined>, extra: [string, string] | null): string {
  const pairs = Object.entries(record).filter((e): e is [string, string] => e[1] !== undefined);
  return [...pairs, ...(extra ? [extra] : [])].map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
}
const extraPair = fc.option(fc.tuple(oneOf('client_id', 'grant_type', 'scope', 'foo', '__proto__'), junkString), { freq: 3 });
const bodyType = fc.constantFrom(FORM, FORM, FORM, `${FORM}; charset=utf-8`, 'application/json', 'text/plain', 'multipart/form-data; boundary=x');

async function check(method: string, url: string, headers: Record<string, string>, payload: string | undefined, label: string) {
  await probe.send({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) }, `${method} ${url.slice(0, 200)} ${label} ${payload?.slice(0, 300) ?? ''}`);
}

describe('generated hostile input against the OAuth endpoints and the logins', () => {
  it('authorization endpoint (GET and the consent POST)', async () => {
    await fc.assert(fc.asyncProperty(fc.record({
      actor: fc.constantFrom('anonymous', 'foodsaver', 'koeln'), post: fc.boolean(), csrf: fc.constantFrom('right', 'wrong', 'none'),
      params: fc.record({
        response_type: maybe(oneOf('code', 'token', 'id_token', 'code id_token')), client_id: maybe(oneOf('demo-app', 'demo-spa')),
        redirect_uri: maybe(oneOf(CALLBACK, SPA_CALLBACK, 'http://localhost:3000/callback', 'https://evil.example/cb')),
        scope: maybe(oneOf('openid', 'openid profile email regions', 'profile', 'openid offline_access', 'openid admin')), state: maybe(junkString), nonce: maybe(junkString),
        code_challenge: maybe(oneOf(CHALLENGE, 'short')), code_challenge_method: maybe(oneOf('S256', 'plain')), prompt: maybe(oneOf('none', 'login', 'consent')),
        max_age: maybe(oneOf('0', '60', '-1')), decision: maybe(oneOf('allow', 'deny')), remember: maybe(oneOf('1', 'on')),
      }), extra: extraPair, type: bodyType,
    }), async (r) => {
      const session = sessions[r.actor];
      const headers: Record<string, string> = session ? { cookie: session.cookie } : {};
      const params = { ...r.params, csrf_token: r.csrf === 'right' ? session?.csrfToken ?? 'x' : r.csrf === 'wrong' ? 'wrong' : undefined };
      if (!r.post) return check('GET', `/oauth/authorize?${fields(params, r.extra)}`, headers, undefined, `as ${r.actor}`);
      return check('POST', '/oauth/authorize', { ...headers, 'content-type': r.type }, fields(params, r.extra), `as ${r.actor}`);
    }), { seed: SEED, numRuns: 4 * RUNS });
  }, TIMEOUT_MS);

  it('token endpoint', async () => {
    await fc.assert(fc.asyncProperty(fc.record({
      grant_type: maybe(oneOf('authorization_code', 'refresh_token', 'client_credentials', 'password')),
      code: maybe(oneOf('fresh', 'junk')), refresh_token: maybe(oneOf('fresh', ...FORGED)), code_verifier: maybe(oneOf(TEST_VERIFIER, 'a'.repeat(43))),
      redirect_uri: maybe(oneOf(CALLBACK, SPA_CALLBACK)), scope: maybe(oneOf('openid', 'openid profile email regions', 'openid admin')),
      auth: clientAuth, extra: extraPair, type: bodyType,
    }), async ({ auth, extra, type, ...params }) => {
      const form: Record<string, string | undefined> = { ...params };
      if (form.code === 'fresh') form.code = fresh.codes.shift() ?? 'used-up';
      if (form.refresh_token === 'fresh') form.refresh_token = fresh.refreshTokens.shift() ?? 'used-up';
      const headers: Record<string, string> = { 'content-type': type };
      authenticate(auth, form as Record<string, string>, headers);
      await check('POST', '/oauth/token', headers, fields(form, extra), `(${auth})`);
    }), { seed: SEED + 1, numRuns: RUNS });
  }, TIMEOUT_MS);

  it('userinfo, revocation and introspection endpoints', async () => {
    await fc.assert(fc.asyncProperty(fc.record({
      userinfo: fc.boolean(), introspect: fc.boolean(), jwt: fc.boolean(), post: fc.boolean(), bearer: maybe(fc.oneof(fc.constantFrom('valid', ...FORGED), headerValue)),
      inBody: maybe(oneOf('valid')), token: maybe(oneOf('fresh', ...FORGED)), hint: maybe(oneOf('refresh_token', 'access_token')),
      auth: clientAuth, extra: extraPair, type: bodyType, query: fc.option(queryString(fc.array(fc.tuple(junkString, junkString), { maxLength: 2 })), { freq: 4 }),
    }), async (r) => {
      const headers: Record<string, string> = {};
      if (r.userinfo) {
        if (r.bearer !== undefined) headers.authorization = `Bearer ${r.bearer === 'valid' ? accessToken : r.bearer}`;
        const body = r.inBody === undefined ? undefined : fields({ access_token: r.inBody === 'valid' ? accessToken : r.inBody }, r.extra);
        const url = `/oauth/userinfo${r.query === null ? '' : `?${r.query}`}`;
        return check(r.post ? 'POST' : 'GET', url, r.post ? { ...headers, 'content-type': r.type } : headers, r.post ? body : undefined, '');
      }
      const form: Record<string, string | undefined> = { token: r.token === 'fresh' ? fresh.revocable.shift() ?? 'used-up' : r.token, token_type_hint: r.hint };
      authenticate(r.auth, form as Record<string, string>, headers);
      if (r.introspect && r.jwt) headers.accept = 'application/token-introspection+jwt';
      await check('POST', r.introspect ? '/oauth/introspect' : '/oauth/revoke', { ...headers, 'content-type': r.type }, fields(form, r.extra), `(${r.auth})`);
    }), { seed: SEED + 2, numRuns: 3 * RUNS });
  }, TIMEOUT_MS);

  it('device authorization endpoint, device_code grant and the /device pages', async () => {
    const devicePage = await t.app.inject({ url: '/device' });
    const anonymousCsrf = { cookie: devicePage.cookies.map((c) => `${c.name}=${c.value}`).join('; '), token: formFields(devicePage.body).csrf_token! };
    await fc.assert(fc.asyncProperty(fc.record({
      target: fc.constantFrom('device_authorization', 'token', 'device', 'approve'), actor: fc.constantFrom('anonymous', 'foodsaver'), post: fc.boolean(),
      client_id: maybe(oneOf(DEVICE_CLIENT, 'demo-app', 'demo-spa')), scope: maybe(oneOf('openid', 'openid profile', 'profile', 'openid admin')),
      device_code: maybe(oneOf('fresh', 'x'.repeat(43))), user_code: maybe(oneOf('fresh', 'BBBB-BBBB', 'bbbbbbbb', 'ABC')),
      step: maybe(oneOf('check', 'confirm')), continuation: maybe(oneOf('x'.repeat(43))), decision: maybe(oneOf('allow', 'deny')),
      csrf: fc.constantFrom('right', 'wrong', 'none'), extra: extraPair, type: bodyType,
    }), async (r) => {
      const session = sessions[r.actor];
      const headers: Record<string, string> = session ? { cookie: session.cookie } : { cookie: anonymousCsrf.cookie };
      const csrf = r.csrf === 'right' ? session?.csrfToken ?? anonymousCsrf.token : r.csrf === 'wrong' ? 'wrong' : undefined;
      if (r.target === 'device_authorization') {
        return check('POST', '/oauth/device_authorization', { 'content-type': r.type }, fields({ client_id: r.client_id, scope: r.scope }, r.extra), '');
      }
      if (r.target === 'token') {
        const device_code = r.device_code === 'fresh' ? fresh.deviceCodes.shift() ?? 'used-up' : r.device_code;
        return check('POST', '/oauth/token', { 'content-type': r.type }, fields({ grant_type: DEVICE_GRANT, device_code, client_id: r.client_id }, r.extra), '');
      }
      if (r.target === 'device') {
        const user_code = r.user_code === 'fresh' ? fresh.userCodes.shift() ?? 'used-up' : r.user_code;
        if (!r.post) return check('GET', `/device?${fields({ user_code }, r.extra)}`, headers, undefined, `as ${r.actor}`);
        return check('POST', '/device', { ...headers, 'content-type': r.type }, fields({ user_code, step: r.step, csrf_token: csrf }, r.extra), `as ${r.actor}`);
      }
      const params = { continuation: r.continuation, decision: r.decision, csrf_token: csrf };
      if (!r.post) return check('GET', `/device/approve?${fields(params, r.extra)}`, headers, undefined, `as ${r.actor}`);
      return check('POST', '/device/approve', { ...headers, 'content-type': r.type }, fields(params, r.extra), `as ${r.actor}`);
    }), { seed: SEED + 4, numRuns: 2 * RUNS });
  }, TIMEOUT_MS);

  it('login page and JSON login', async () => {
    const loginPage = await t.app.inject({ url: '/login' });
    const anonymousCsrf = { cookie: loginPage.cookies.map((c) => `${c.name}=${c.value}`).join('; '), token: formFields(loginPage.body).csrf_token! };
    await fc.assert(fc.asyncProperty(fc.record({
      json: fc.boolean(), email: maybe(oneOf('foodsaver@example.org', 'koeln@example.org', 'nobody@example.org', 'FOODSAVER@example.org ')),
      password: maybe(oneOf(DEMO_PASSWORD, 'wrong')), return_to: maybe(oneOf('/', '/oauth/authorize?client_id=demo-app', '//evil.example', 'https://evil.example/')),
      csrf: fc.constantFrom('right', 'right', 'wrong', 'none'), remember: maybe(oneOf('1', 'on', 'true')), extra: extraPair, type: bodyType,
    }), async (r) => {
      if (r.json) {
        const body = JSON.stringify({ email: r.email, password: r.password, rememberMe: r.remember === undefined ? undefined : r.remember === 'true' });
        return check('POST', '/api/user/login', { 'content-type': r.type === FORM ? 'application/json' : r.type }, body, '');
      }
      const form = { email: r.email, password: r.password, return_to: r.return_to, remember: r.remember, csrf_token: r.csrf === 'right' ? anonymousCsrf.token : r.csrf === 'wrong' ? 'x' : undefined };
      await check('POST', '/login', { cookie: anonymousCsrf.cookie, 'content-type': r.type }, fields(form, r.extra), '');
    }), { seed: SEED + 3, numRuns: RUNS });
    expect(await probe.settled()).toBe(true);
  }, TIMEOUT_MS);
});
