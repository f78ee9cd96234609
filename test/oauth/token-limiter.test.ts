/**
 * The token and revocation endpoints' limiter of failed requests: anonymous
 * failures from an IP never refuse a client with valid credentials from that
 * IP, a confidential client's failures never refuse its valid grants, while
 * guessing secrets, or a public client's codes, still ends in 429.
 */
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { TOKEN_FAILURES_PER_MINUTE } from '../../src/oauth/failure-limiter.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
let session: TestSession;
beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
});

function post(url: string, ip: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url, remoteAddress: ip, payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

function basic(c: { clientId: string; secret: string }): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.secret)}`).toString('base64')}` };
}

async function confidentialClient() {
  return (await makeClient(t)) as { clientId: string; secret: string };
}

async function exchangeForm(c: { clientId: string; secret: string | null }) {
  const code = await obtainCode(t, { clientId: c.clientId, cookie: session.cookie });
  return {
    grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: c.clientId,
    ...(c.secret === null ? {} : { client_secret: c.secret }),
  };
}

/** Sends `n` requests one after the other and returns their statuses. */
async function statuses(n: number, send: (i: number) => Promise<{ statusCode: number }>): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < n; i++) result.push((await send(i)).statusCode);
  return result;
}

const LIMIT = TOKEN_FAILURES_PER_MINUTE;

describe('token endpoint limiter', () => {
  test('after 30+ anonymous failures from an IP, a valid exchange, refresh and revocation from that IP succeed', async () => {
    const ip = '10.20.0.1';
    const c = await confidentialClient();
    const anonymous = await statuses(LIMIT + 5, (i) => (i % 3 === 0
      ? post('/oauth/token', ip, { grant_type: 'x' })
      : i % 3 === 1
        ? post('/oauth/token', ip, { grant_type: 'authorization_code', code: 'x', client_id: 'no-such-client', client_secret: 'x' })
        : post('/oauth/revoke', ip, { token: 'x', client_id: c.clientId, client_secret: 'wrong' })));
    expect(anonymous.slice(0, LIMIT).every((s) => s === 400 || s === 401)).toBe(true);
    expect(anonymous.slice(LIMIT)).toEqual([429, 429, 429, 429, 429]);

    const exchanged = await post('/oauth/token', ip, await exchangeForm(c));
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    const refreshed = await post('/oauth/token', ip, {
      grant_type: 'refresh_token', refresh_token: exchanged.json().refresh_token, client_id: c.clientId, client_secret: c.secret,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const revoked = await post('/oauth/revoke', ip, { token: refreshed.json().refresh_token, client_id: c.clientId, client_secret: c.secret });
    expect(revoked.statusCode).toBe(200);
    // The IP itself stays limited for requests that fail.
    expect((await post('/oauth/token', ip, { grant_type: 'x' })).statusCode).toBe(429);
  });

  test('addresses of one IPv6 /64 are one client: guesses spread over it are limited together, another /64 is not', async () => {
    const c = await confidentialClient();
    const guess = (ip: string, i: number) => post('/oauth/token', ip, {
      grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: c.clientId, client_secret: `guess-${i}`,
    });
    const spread = await statuses(LIMIT + 1, (i) => guess(`2001:db8:77:1::${(i + 1).toString(16)}`, i));
    expect(spread.slice(0, LIMIT).every((s) => s === 401)).toBe(true);
    expect(spread[LIMIT]).toBe(429);
    expect((await guess('2001:db8:77:1:ffff:ffff:ffff:ffff', 99)).statusCode).toBe(429);
    expect((await guess('2001:db8:77:2::1', 100)).statusCode).toBe(401);
  });

  test('two instances on one database count as one: guesses spread over both are limited together', async () => {
    const ip = '10.20.0.9';
    const c = await confidentialClient();
    const handle = { db: t.db, kind: 'pglite' as const, ping: async () => {}, close: async () => {} };
    const second = await buildApp(t.config, { database: handle, keys: t.keys, clock: t.clock.now });
    try {
      const guess = (app: FastifyInstance, i: number) => app.inject({
        method: 'POST', url: '/oauth/token', remoteAddress: ip, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: c.clientId, client_secret: `guess-${i}` }).toString(),
      });
      const spread = await statuses(LIMIT, (i) => guess(i % 2 === 0 ? t.app : second, i));
      expect(spread.every((s) => s === 401)).toBe(true);
      expect((await guess(second, LIMIT)).statusCode).toBe(429);
      expect((await guess(t.app, LIMIT + 1)).statusCode).toBe(429);
      expect(await t.db.selectFrom('oauth_failure_windows').select('failures').where('key', '=', `ip:${ip}`).executeTakeFirst()).toEqual({ failures: LIMIT });
    } finally {
      await second.close();
    }
  });

  test('an attacker guessing a client secret gets 429 after 30 wrong guesses, with Retry-After, until the minute is over', async () => {
    const ip = '10.20.0.2';
    const c = await confidentialClient();
    const guesses = await statuses(LIMIT + 2, (i) => post('/oauth/token', ip, {
      grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: c.clientId, client_secret: `guess-${i}`,
    }));
    expect(guesses.slice(0, LIMIT).every((s) => s === 401)).toBe(true);
    const refused = await post('/oauth/token', ip, { grant_type: 'authorization_code', code: 'x', client_id: c.clientId, client_secret: 'guess' });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(guesses.slice(LIMIT)).toEqual([429, 429]);
    t.clock.advance(61);
    expect((await post('/oauth/token', ip, { grant_type: 'authorization_code', code: 'x', client_id: c.clientId, client_secret: 'guess' })).statusCode).toBe(401);
  });

  test('a confidential client\'s valid exchange, refresh and revocation succeed after 30+ junk codes and refresh tokens its users brought', async () => {
    const ip = '10.20.0.3';
    const app = await confidentialClient();
    const first = await post('/oauth/token', ip, await exchangeForm(app));
    expect(first.statusCode, first.body).toBe(200);
    const junk = await statuses(LIMIT + 5, (i) => post('/oauth/token', ip, i % 2 === 0
      ? { grant_type: 'authorization_code', code: `junk-${i}`, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER }
      : { grant_type: 'refresh_token', refresh_token: `expired-${i}` }, basic(app)));
    expect(junk.slice(0, LIMIT).every((s) => s === 400)).toBe(true);
    expect(junk.slice(LIMIT)).toEqual([429, 429, 429, 429, 429]);

    const { code, redirect_uri, code_verifier } = await exchangeForm(app);
    const exchanged = await post('/oauth/token', ip, { grant_type: 'authorization_code', code, redirect_uri, code_verifier }, basic(app));
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    expect(exchanged.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const refreshed = await post('/oauth/token', '10.20.0.4', { grant_type: 'refresh_token', refresh_token: first.json().refresh_token }, basic(app));
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(typeof refreshed.json().access_token).toBe('string');
    const revoked = await post('/oauth/revoke', ip, { token: refreshed.json().refresh_token }, basic(app));
    expect(revoked.statusCode).toBe(200);
  });

  test('past its limit, a confidential client\'s failing requests answer 429 with Retry-After, from any IP, until the minute is over; other clients are untouched', async () => {
    const noisy = await confidentialClient();
    const other = await confidentialClient();
    const junkCode = (c: { clientId: string; secret: string }, ip: string) => post('/oauth/token', ip, {
      grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER,
    }, basic(c));
    const bad = await statuses(LIMIT, () => junkCode(noisy, '10.20.0.7'));
    expect(bad.every((s) => s === 400)).toBe(true);

    const limited = await junkCode(noisy, '10.20.0.8');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toEqual({ error: 'invalid_request', error_description: 'Too many failed requests. Please retry later.' });
    const reused = await post('/oauth/token', '10.20.0.8', { grant_type: 'refresh_token', refresh_token: 'replayed' }, basic(noisy));
    expect(reused.statusCode).toBe(429);

    const elsewhere = await junkCode(other, '10.20.0.7');
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });

    t.clock.advance(61);
    const later = await junkCode(noisy, '10.20.0.8');
    expect(later.statusCode).toBe(400);
    expect(later.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });
  });

  test('guessing codes for a public client is limited per client and IP; the same client elsewhere is not', async () => {
    const pub = await makeClient(t, { confidential: false, grantTypes: ['authorization_code'] });
    const attacker = '10.20.0.5';
    const guesses = await statuses(LIMIT + 1, (i) => post('/oauth/token', attacker, {
      grant_type: 'authorization_code', code: `guess-${i}`, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: pub.clientId,
    }));
    expect(guesses.slice(0, LIMIT).every((s) => s === 400)).toBe(true);
    expect(guesses[LIMIT]).toBe(429);
    // Refused before the grant runs: a right guess would not help the attacker.
    expect((await post('/oauth/token', attacker, await exchangeForm(pub))).statusCode).toBe(429);
    expect((await post('/oauth/token', '10.20.0.6', await exchangeForm(pub))).statusCode).toBe(200);
  });

  test('a public client\'s guesses sent all at once, to two instances: no more than 30 reach the grant, the rest answer 429', async () => {
    const pub = await makeClient(t, { confidential: false, grantTypes: ['authorization_code'] });
    const attacker = '10.20.0.7';
    const handle = { db: t.db, kind: 'pglite' as const, ping: async () => {}, close: async () => {} };
    const second = await buildApp(t.config, { database: handle, keys: t.keys, clock: t.clock.now });
    try {
      const answers = await Promise.all(Array.from({ length: LIMIT + 20 }, (_, i) => (i % 2 === 0 ? t.app : second).inject({
        method: 'POST', url: '/oauth/token', remoteAddress: attacker, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'authorization_code', code: `guess-${i}`, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: pub.clientId }).toString(),
      })));
      const count = (status: number) => answers.filter((a) => a.statusCode === status).length;
      expect({ 400: count(400), 429: count(429) }).toEqual({ 400: LIMIT, 429: 20 });
      expect(await t.db.selectFrom('oauth_failure_windows').select('failures').where('key', '=', `public:${pub.clientId}\n${attacker}`).executeTakeFirst())
        .toEqual({ failures: LIMIT });
    } finally {
      await second.close();
    }
  });

  test('a public client\'s requests that succeed give their place back: its users\' exchanges never use up its limit', async () => {
    const pub = await makeClient(t, { confidential: false, grantTypes: ['authorization_code'] });
    const ip = '10.20.0.8';
    const guess = (i: number) => post('/oauth/token', ip, {
      grant_type: 'authorization_code', code: `guess-${i}`, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: pub.clientId,
    });
    expect((await statuses(LIMIT - 1, guess)).every((s) => s === 400)).toBe(true);
    expect(await statuses(5, async () => post('/oauth/token', ip, await exchangeForm(pub)))).toEqual([200, 200, 200, 200, 200]);
    expect((await guess(LIMIT)).statusCode).toBe(400);
    expect((await guess(LIMIT + 1)).statusCode).toBe(429);
  });
});
