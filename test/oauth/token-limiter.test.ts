/**
 * The token and revocation endpoints' limiter of failed requests: anonymous
 * failures from an IP never refuse a client with valid credentials from that
 * IP, while guessing secrets, codes or refresh tokens still ends in 429.
 */
import { beforeAll, describe, expect, test } from 'vitest';
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

function post(url: string, ip: string, form: Record<string, string>) {
  return t.app.inject({
    method: 'POST', url, remoteAddress: ip, payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
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

  test('a confidential client\'s own failures (bad codes) count on that client, not on its IP', async () => {
    const ip = '10.20.0.3';
    const noisy = await confidentialClient();
    const other = await confidentialClient();
    const bad = await statuses(LIMIT, () => post('/oauth/token', ip, {
      grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER,
      client_id: noisy.clientId, client_secret: noisy.secret,
    }));
    expect(bad.every((s) => s === 400)).toBe(true);
    // Checked before the grant runs, from any IP: even a valid code waits for the minute to end.
    expect((await post('/oauth/token', '10.20.0.4', await exchangeForm(noisy))).statusCode).toBe(429);
    expect((await post('/oauth/token', ip, await exchangeForm(other))).statusCode).toBe(200);
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
});
