/**
 * GET /metrics: Prometheus text for operators, behind METRICS_TOKEN; absent
 * without it. The counters follow what clients did: requests per route and
 * status, tokens per grant, failed and throttled logins.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';
import { codeAt, enrol, passwordStep, postForm, secondStep } from '../helpers/one-time-codes.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { GRANT_TYPES } from '../../src/oauth/scopes.ts';
import { grantTypeOf } from '../../src/ops/metrics.ts';

const TOKEN = 'metrics-token-for-tests-0123456789';

const t = useTestApp({ env: { METRICS_TOKEN: TOKEN } });
let user: TestUser;

beforeAll(async () => {
  user = await makeUser(t.db);
});

async function scrape(): Promise<string> {
  const response = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

/** The value of one sample line, 0 when the series does not exist yet. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('refuses a scrape without the token, or with another one', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token-00', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const response = await t.app.inject({ url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
      expect(response.statusCode, authorization).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(response.body).not.toContain('http_requests_total');
    }
  });

  it('does not exist without METRICS_TOKEN', async () => {
    const plain = await buildTestApp();
    try {
      const response = await plain.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('refuses to start with a token short enough to guess, or one with spaces', () => {
    for (const METRICS_TOKEN of ['short-token', 'sixteen chars ok']) {
      expect(() => loadConfig({ METRICS_TOKEN }), METRICS_TOKEN).toThrow(ConfigError);
      try {
        loadConfig({ METRICS_TOKEN });
      } catch (error) {
        expect((error as ConfigError).problems).toEqual(['METRICS_TOKEN must be at least 16 printable ASCII characters without spaces']);
      }
    }
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
  });

  it('counts requests per route template and status, with latency', async () => {
    const before = await scrape();
    const series = 'http_requests_total{method="GET",route="/api/baskets/:basketId",status="401"}';
    await t.app.inject({ url: '/api/baskets/1' });
    await t.app.inject({ url: '/api/baskets/2' });
    const after = await scrape();
    expect(sample(after, series) - sample(before, series)).toBe(2);
    expect(sample(after, 'http_request_duration_seconds_count{method="GET",route="/api/baskets/:basketId",status="401"}')).toBe(sample(after, series));
    expect(after).toContain('nodejs_eventloop_lag_seconds');
  });

  it('counts failed logins and tokens issued per grant', async () => {
    const before = await scrape();
    const failed = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: 'not the password' } });
    expect(failed.statusCode).toBe(401);

    const session = await logInAs(t.app, user);
    const client = (await makeClient(t)) as { clientId: string; secret: string };
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const tokens = await tokenRequest(t, {
      grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret,
    });
    expect(tokens.statusCode).toBe(200);
    const refreshed = await tokenRequest(t, {
      grant_type: 'refresh_token', refresh_token: tokens.json().refresh_token, client_id: client.clientId, client_secret: client.secret,
    });
    expect(refreshed.statusCode).toBe(200);
    const refused = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'junk', client_id: client.clientId, client_secret: client.secret });
    expect(refused.statusCode).toBe(400);

    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('login_failures_total{route="/api/user/login"}')).toBe(1);
    expect(delta('oauth_tokens_issued_total{grant_type="authorization_code"}')).toBe(1);
    expect(delta('oauth_tokens_issued_total{grant_type="refresh_token"}')).toBe(1);
  });

  it('counts throttled logins apart from failed ones', async () => {
    const target = await makeUser(t.db);
    const before = await scrape();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const response = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: target.email, password: `wrong ${i}` } });
      statuses.push(response.statusCode);
    }
    expect(statuses).toContain(429);
    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('login_failures_total{route="/api/user/login"}')).toBe(statuses.filter((s) => s === 401).length);
    expect(delta('login_throttled_total{route="/api/user/login"}')).toBe(statuses.filter((s) => s === 429).length);
  });

  it('counts the second factor: codes turned on, accepted, wrong, and turned off', async () => {
    const member = await makeUser(t.db);
    const before = await scrape();
    const { secret, recoveryCodes, session } = await enrol(t.app, await logInAs(t.app, member), new Date());
    const step = await passwordStep(t.app, member);
    expect((await secondStep(t.app, step, 'zzzz-zzzz-zzzz')).statusCode).toBe(401);
    expect((await secondStep(t.app, step, recoveryCodes[0]!)).statusCode).toBe(303);
    const off = await postForm(t.app, '/settings/security/one-time-codes/disable', session.cookie, { csrf_token: session.csrfToken, code: codeAt(secret, new Date(Date.now() + 30_000)) });
    // The next step's code: the one of this step was used by the enrolment (accepted one step early, RFC 6238 §5.2).
    expect(off.statusCode).toBe(303);
    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('second_factor_total{outcome="enrolled"}')).toBe(1);
    expect(delta('second_factor_total{outcome="failure"}')).toBe(1);
    expect(delta('second_factor_total{outcome="recovery_code"}')).toBe(1);
    expect(delta('second_factor_total{outcome="removed"}')).toBe(1);
    expect(delta('login_failures_total{route="/login/second-factor"}')).toBe(1);
  });

  it.runIf(TEST_DATABASE_URL)('reports the PostgreSQL pool', async () => {
    const text = await scrape();
    expect(sample(text, 'db_pool_connections_max')).toBeGreaterThan(0);
    expect(sample(text, 'db_pool_connections_open')).toBeGreaterThan(0);
    expect(text).toContain('db_pool_requests_waiting');
  });
});

describe('the grant_type label of oauth_tokens_issued_total', () => {
  it('is the grant type of every grant the token endpoint issues for (the device grant was counted as other)', () => {
    for (const grantType of GRANT_TYPES) expect(grantTypeOf({ grant_type: grantType })).toBe(grantType);
  });

  it.each([[{ grant_type: 'password' }], [{ grant_type: ['refresh_token'] }], [{}], [undefined]])('%j: other, never a value from the request', (body) => {
    expect(grantTypeOf(body)).toBe('other');
  });
});
