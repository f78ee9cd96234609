/**
 * The device authorization grant (RFC 8628) through inject on a real
 * database: the device authorization endpoint, the member's steps at /device
 * (entry, confirmation, login, consent) and the device's polls at the token
 * endpoint — success once, then every refusal, with what was (not) written.
 */
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { regenerateClientSecret } from '../../src/oauth/clients/clients.service.ts';
import { TOKEN_FAILURES_PER_MINUTE } from '../../src/oauth/failure-limiter.ts';
import { buildApp } from '../../src/app.ts';
import { USER_CODE_GLOBAL_POLICY, USER_CODE_SOURCE_POLICY } from '../../src/oauth/device-authorization/device-verification.ts';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { formFields, makeClient, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const lines: string[] = [];
/** Every device code, user code and continuation handed out: none may reach the log. */
const secrets: string[] = [];
const t = useTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line) => { lines.push(line); } } });
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const FORM = 'application/x-www-form-urlencoded';
let user: TestUser;
let member: TestSession;

beforeAll(async () => {
  user = await makeUser(t.db, { firstName: 'Dana' });
  member = await logInAs(t.app, user);
});

function deviceClient(overrides: Parameters<typeof makeClient>[1] = {}) {
  return makeClient(t, { confidential: false, grantTypes: ['authorization_code', 'refresh_token', DEVICE_GRANT], ...overrides });
}

async function startDevice(clientId: string, scope = 'openid profile') {
  const response = await t.app.inject({
    method: 'POST', url: '/oauth/device_authorization', headers: { 'content-type': FORM },
    payload: new URLSearchParams({ client_id: clientId, scope }).toString(),
  });
  expect(response.statusCode).toBe(200);
  secrets.push(response.json().device_code, response.json().user_code, response.json().user_code.replace('-', ''));
  return response.json() as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
}

async function startDeviceAs(clientId: string, secret: string) {
  const response = await t.app.inject({
    method: 'POST', url: '/oauth/device_authorization',
    headers: { 'content-type': FORM, authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    payload: new URLSearchParams({ scope: 'openid profile' }).toString(),
  });
  expect(response.statusCode).toBe(200);
  secrets.push(response.json().device_code, response.json().user_code, response.json().user_code.replace('-', ''));
  return response.json() as { device_code: string; user_code: string };
}

function poll(clientId: string, deviceCode: string) {
  return tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });
}

/** A browser of the member at /device: its cookie and the page's CSRF token. */
async function entryForm(cookie = member.cookie, remoteAddress = '127.0.0.1') {
  const page = await t.app.inject({ url: '/device', headers: { cookie }, remoteAddress });
  const pageCookies = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { cookie: [cookie, pageCookies].filter((c) => c !== '').join('; '), csrf: formFields(page.body).csrf_token! };
}

async function submit(userCode: string, step: 'check' | 'confirm', options: { cookie?: string; remoteAddress?: string } = {}) {
  const form = await entryForm(options.cookie ?? member.cookie, options.remoteAddress);
  return t.app.inject({
    method: 'POST', url: '/device', remoteAddress: options.remoteAddress ?? '127.0.0.1', headers: { cookie: form.cookie, 'content-type': FORM },
    payload: new URLSearchParams({ user_code: userCode, step, csrf_token: form.csrf }).toString(),
  });
}

/** The browser's cookies after it confirmed a code: `cookie` and the cookie naming the codes it confirmed. */
function confirmedIn(confirmed: { cookies: { name: string; value: string }[] }, cookie = member.cookie) {
  const set = confirmed.cookies.find((c) => c.name === 'fs_device_confirmed');
  expect(set).toBeDefined();
  return [cookie, `${set!.name}=${set!.value}`].filter((c) => c !== '').join('; ');
}

/** Confirms the code, opens the consent page and answers it as the logged-in member. */
async function answer(userCode: string, decision: 'allow' | 'deny') {
  const confirmed = await submit(userCode, 'confirm');
  expect(confirmed.statusCode).toBe(303);
  const approveUrl = confirmed.headers.location as string;
  secrets.push(new URL(approveUrl, 'http://x').searchParams.get('continuation')!);
  const browser = confirmedIn(confirmed);
  const consent = await t.app.inject({ url: approveUrl, headers: { cookie: browser } });
  expect(consent.statusCode).toBe(200);
  const fields = formFields(consent.body);
  const done = await t.app.inject({
    method: 'POST', url: '/device/approve', headers: { cookie: browser, 'content-type': FORM },
    payload: new URLSearchParams({ ...fields, decision }).toString(),
  });
  return { approveUrl, fields, done, browser };
}

async function deviceRow(deviceCode: string) {
  const { createHash } = await import('node:crypto');
  return t.db.selectFrom('oauth_device_codes').selectAll().where('device_code_digest', '=', createHash('sha256').update(deviceCode).digest()).executeTakeFirst();
}

describe('device authorization endpoint', () => {
  test('answers the codes, the verification URIs, 600 s and 5 s; stores digests only', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    expect(started.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe(`${t.config.publicUrl}/device`);
    expect(started.verification_uri_complete).toBe(`${t.config.publicUrl}/device?user_code=${started.user_code}`);
    expect(started.expires_in).toBe(600);
    expect(started.interval).toBe(5);
    const row = await deviceRow(started.device_code);
    expect(row).toMatchObject({ status: 'pending', scopes: ['openid', 'profile'], user_id: null, confirmed_at: null });
    expect(row!.user_code_digest.includes(Buffer.from(started.user_code.replace('-', '')))).toBe(false);
  });

  test('a client without the grant is unauthorized_client, nothing stored', async () => {
    const client = await makeClient(t, { confidential: false });
    const before = await t.db.selectFrom('oauth_device_codes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const response = await t.app.inject({
      method: 'POST', url: '/oauth/device_authorization', headers: { 'content-type': FORM },
      payload: new URLSearchParams({ client_id: client.clientId, scope: 'openid' }).toString(),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'unauthorized_client', error_description: 'The client is not allowed to use the device authorization grant.' });
    const after = await t.db.selectFrom('oauth_device_codes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  test('the token endpoint also refuses the grant to a client without it', async () => {
    const client = await makeClient(t, { confidential: false });
    const response = await poll(client.clientId, 'a'.repeat(43));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('unauthorized_client');
  });

  test('scopes are checked as at the authorization endpoint; a confidential client authenticates', async () => {
    const client = await deviceClient({ confidential: true, scopes: ['openid', 'email'] });
    const send = (form: Record<string, string>, authorization?: string) => t.app.inject({
      method: 'POST', url: '/oauth/device_authorization', headers: { 'content-type': FORM, ...(authorization ? { authorization } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
    const basic = `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}`;
    expect((await send({ scope: 'email' }, basic)).json()).toEqual({ error: 'invalid_scope', error_description: 'The scope must include openid.' });
    expect((await send({ scope: 'openid profile' }, basic)).json()).toEqual({ error: 'invalid_scope', error_description: 'Scope not allowed for this client: profile' });
    const wrong = await send({ client_id: client.clientId, scope: 'openid' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('invalid_client');
    expect((await send({ scope: 'openid email' }, basic)).statusCode).toBe(200);
  });

  test('GET is 405', async () => {
    const response = await t.app.inject({ url: '/oauth/device_authorization' });
    expect(response.statusCode).toBe(405);
  });
});

describe('the member approves; the device gets tokens once', () => {
  test('pending, approved, tokens like the code grant (auth_time, sid, refresh token), then invalid_grant', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId, 'openid profile');
    const pending = await poll(client.clientId, started.device_code);
    expect(pending.statusCode).toBe(400);
    expect(pending.json()).toEqual({ error: 'authorization_pending', error_description: 'The user has not answered yet.' });

    // Typed in lower case with a space: the confirmation page names the client and shows the code.
    const typed = started.user_code.toLowerCase().replace('-', ' ');
    const check = await submit(typed, 'check');
    expect(check.statusCode).toBe(200);
    expect(check.body).toContain(started.user_code);
    expect(check.body).toContain('Test App');
    // Looking the code up spends nothing.
    expect((await deviceRow(started.device_code))!.confirmed_at).toBeNull();

    const { done } = await answer(typed, 'allow');
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Du kannst zu deinem Gerät zurückkehren.');

    t.clock.advance(5);
    const success = await poll(client.clientId, started.device_code);
    expect(success.statusCode).toBe(200);
    const body = success.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid profile' });
    expect(body.refresh_token).toBeTruthy();
    const claims = decodeJwt(body.id_token);
    const session = await t.db.selectFrom('sessions').select(['sid', 'auth_time']).where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(claims).toMatchObject({ sub: String(user.id), aud: client.clientId, sid: session.sid, auth_time: Math.floor(session.auth_time.getTime() / 1000) });
    expect(claims.nonce).toBeUndefined();
    const row = await deviceRow(started.device_code);
    expect(row).toMatchObject({ status: 'used', user_id: user.id, sid: session.sid });
    const grant = await t.db.selectFrom('oauth_grants').selectAll().where('id', '=', row!.grant_id!).executeTakeFirstOrThrow();
    expect(grant).toMatchObject({ user_id: user.id, scopes: ['openid', 'profile'], revoked_at: null, sid: session.sid });

    t.clock.advance(5);
    const again = await poll(client.clientId, started.device_code);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired device code' });
    // The refresh token works like one from the code grant.
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: client.clientId });
    expect(refreshed.statusCode).toBe(200);
  });

  test('a client without refresh_token gets no refresh token', async () => {
    const client = await deviceClient({ grantTypes: ['authorization_code', DEVICE_GRANT] });
    const started = await startDevice(client.clientId, 'openid');
    await answer(started.user_code, 'allow');
    const success = await poll(client.clientId, started.device_code);
    expect(success.statusCode).toBe(200);
    expect(success.json().refresh_token).toBeUndefined();
  });

  test('the user code is single use: a second confirmation or lookup finds nothing', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    const first = await submit(started.user_code, 'confirm');
    expect(first.statusCode).toBe(303);
    for (const step of ['check', 'confirm'] as const) {
      const again = await submit(started.user_code, step);
      expect(again.statusCode).toBe(400);
      expect(again.body).toContain('Diesen Code kennen wir nicht, oder er ist abgelaufen oder wurde schon verwendet.');
    }
  });

  test('the consent is answered once; the continuation then shows the expired page', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    const { approveUrl, fields, browser } = await answer(started.user_code, 'allow');
    for (const request of [
      { method: 'GET' as const, url: approveUrl },
      { method: 'POST' as const, url: '/device/approve', payload: new URLSearchParams({ ...fields, decision: 'deny' }).toString() },
    ]) {
      const response = await t.app.inject({ ...request, headers: { cookie: browser, 'content-type': FORM } });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('Diese Anfrage ist abgelaufen oder wurde schon beantwortet.');
    }
    expect((await deviceRow(started.device_code))!.status).toBe('approved');
  });

  test('not logged in: the confirmation leads through /login and back to the consent page', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    const confirmed = await submit(started.user_code, 'confirm', { cookie: '' });
    expect(confirmed.statusCode).toBe(303);
    const approveUrl = confirmed.headers.location as string;
    expect(approveUrl).toMatch(/^\/device\/approve\?continuation=[A-Za-z0-9_-]{43}$/);
    const login = await t.app.inject({ url: approveUrl, headers: { cookie: confirmedIn(confirmed, '') } });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe(`/login?return_to=${encodeURIComponent(approveUrl)}`);
    expect(login.headers['referrer-policy']).toBe('no-referrer');
    // Back from the login, the consent page offers no "remember" and posts to /device/approve.
    const consent = await t.app.inject({ url: approveUrl, headers: { cookie: confirmedIn(confirmed) } });
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('action="/device/approve"');
    expect(consent.body).not.toContain('name="remember"');
  });
});

describe('only the browser that confirmed the code goes on (RFC 8628 §5.4)', () => {
  test('an approval link sent to someone else stops before any login, and cannot be answered: the device is still pending', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    // The sender types the code of a device of their own, confirms it without logging in, and sends the link.
    const confirmed = await submit(started.user_code, 'confirm', { cookie: '' });
    expect(confirmed.statusCode).toBe(303);
    const approveUrl = confirmed.headers.location as string;
    secrets.push(new URL(approveUrl, 'http://x').searchParams.get('continuation')!);
    expect(confirmed.headers['set-cookie']).toMatch(/^fs_device_confirmed=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/device; HttpOnly; SameSite=Lax$/);

    // The member opens it, logged in or not: no consent page, no login page, but the way to enter a code.
    for (const cookie of ['', member.cookie]) {
      const page = await t.app.inject({ url: approveUrl, headers: { cookie } });
      expect(page.statusCode).toBe(403);
      expect(page.body).toContain('Dieser Link gilt nur in dem Browser, in dem der Code des Geräts eingegeben wurde.');
      expect(page.body).toContain('href="/device"');
      expect(page.body).not.toContain('action="/device/approve"');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
    }
    // Nor can it be answered with a form of the member's own (another device's consent page, the continuation swapped).
    const ownDevice = await startDevice(client.clientId);
    const own = await submit(ownDevice.user_code, 'confirm');
    const ownBrowser = confirmedIn(own);
    const ownConsent = await t.app.inject({ url: own.headers.location as string, headers: { cookie: ownBrowser } });
    const continuation = new URL(approveUrl, 'http://x').searchParams.get('continuation')!;
    const answered = await t.app.inject({
      method: 'POST', url: '/device/approve', headers: { cookie: ownBrowser, 'content-type': FORM },
      payload: new URLSearchParams({ ...formFields(ownConsent.body), continuation, decision: 'allow' }).toString(),
    });
    expect(answered.statusCode).toBe(403);
    expect((await deviceRow(started.device_code))!.status).toBe('pending'); // confirmed, not answered
    expect((await poll(client.clientId, started.device_code)).json().error).toBe('authorization_pending');
    expect(lines.filter((line) => line.includes('"event":"oauth.device.continuation_refused"'))).toHaveLength(3);
    // The sender's own browser still may: the link was never the key.
    const sender = await t.app.inject({ url: approveUrl, headers: { cookie: confirmedIn(confirmed) } });
    expect(sender.statusCode).toBe(200);
  });

  test('a browser that confirmed two codes may answer both', async () => {
    const client = await deviceClient();
    const first = await startDevice(client.clientId);
    const second = await startDevice(client.clientId);
    const confirmedFirst = await submit(first.user_code, 'confirm');
    const afterFirst = confirmedIn(confirmedFirst);
    const confirmedSecond = await submit(second.user_code, 'confirm', { cookie: afterFirst });
    const browser = confirmedIn(confirmedSecond);
    for (const confirmed of [confirmedFirst, confirmedSecond]) {
      const consent = await t.app.inject({ url: confirmed.headers.location as string, headers: { cookie: browser } });
      expect(consent.statusCode).toBe(200);
    }
  });
});

describe('the device is refused', () => {
  test('denial: access_denied, and no grant', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    const { done } = await answer(started.user_code, 'deny');
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('hat keinen Zugriff erhalten');
    const response = await poll(client.clientId, started.device_code);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'access_denied', error_description: 'The user denied the request.' });
    expect(await deviceRow(started.device_code)).toMatchObject({ status: 'denied', grant_id: null, user_id: user.id });
  });

  test('a member in none of the client\'s required regions: 403 page, and the device is told access_denied', async () => {
    const region = await makeRegion(t.db);
    const client = await deviceClient({ requiredRegions: [region] });
    const started = await startDevice(client.clientId);
    const confirmed = await submit(started.user_code, 'confirm');
    const page = await t.app.inject({ url: confirmed.headers.location as string, headers: { cookie: confirmedIn(confirmed) } });
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('User not in required regions');
    expect((await poll(client.clientId, started.device_code)).json()).toEqual({ error: 'access_denied', error_description: 'The user denied the request.' });
  });

  test('polling faster than the interval: slow_down, and the interval grows by 5 seconds', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    expect((await poll(client.clientId, started.device_code)).json().error).toBe('authorization_pending');
    t.clock.advance(3);
    const fast = await poll(client.clientId, started.device_code);
    expect(fast.statusCode).toBe(400);
    expect(fast.json()).toEqual({ error: 'slow_down', error_description: 'Polling too often: wait 5 seconds longer between requests.' });
    // Now 10 seconds, less a second's tolerance for the clocks of several instances: 8 is still too soon.
    t.clock.advance(8);
    expect((await poll(client.clientId, started.device_code)).json().error).toBe('slow_down');
    // Now 15: 14 is on time.
    t.clock.advance(14);
    const before = t.clock.now().getTime();
    expect((await poll(client.clientId, started.device_code)).json().error).toBe('authorization_pending');
    // A pending poll writes its time and the interval on the code's row, nothing else.
    const row = (await deviceRow(started.device_code))!;
    expect(row).toMatchObject({ status: 'pending', poll_interval_seconds: 15 });
    expect(row.last_polled_at!.getTime()).toBeGreaterThanOrEqual(before);
    expect(row.last_polled_at!.getTime()).toBeLessThanOrEqual(t.clock.now().getTime());
  });

  describe('on two instances of one database', () => {
    /** A second instance on the same database, whose clock is `behindMs` behind the first's. */
    async function withSecondInstance(behindMs: number, use: (second: FastifyInstance) => Promise<void>) {
      const handle = { db: t.db, kind: 'pglite' as const, ping: async () => {}, close: async () => {} };
      const second = await buildApp(t.config, { database: handle, keys: t.keys, clock: () => new Date(t.clock.now().getTime() - behindMs) });
      try {
        await use(second);
      } finally {
        await second.close();
      }
    }
    const pollAt = (app: FastifyInstance, deviceCode: string, clientId: string) => app.inject({ method: 'POST', url: '/oauth/token',
      headers: { 'content-type': FORM }, payload: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId }).toString() });

    test('the pace is the same at both: a poll at one, then too soon at the other, is slow_down; two at once are paced in turn', async () => {
      const client = await deviceClient();
      const started = await startDevice(client.clientId);
      await withSecondInstance(0, async (second) => {
        const at = (app: FastifyInstance) => pollAt(app, started.device_code, client.clientId);
        expect((await at(t.app)).json().error).toBe('authorization_pending');
        t.clock.advance(2);
        expect((await at(second)).json().error).toBe('slow_down');
        t.clock.advance(8);
        expect((await at(t.app)).json().error).toBe('slow_down');
        t.clock.advance(15);
        expect((await at(second)).json().error).toBe('authorization_pending');
        // Two polls at once, one at each: the row is locked for the reading, so the second is too soon
        // (on PostgreSQL two connections; the embedded database runs one statement at a time).
        t.clock.advance(15);
        const both = await Promise.all([at(t.app), at(second)]);
        expect(both.map((r) => r.json().error).sort()).toEqual(['authorization_pending', 'slow_down']);
      });
    });

    test('a device that waits its interval is never slowed down by instances whose clocks differ a little', async () => {
      const client = await deviceClient();
      const started = await startDevice(client.clientId);
      await withSecondInstance(500, async (second) => {
        const answers: string[] = [];
        for (let i = 0; i < 6; i++) {
          answers.push((await pollAt(i % 2 === 0 ? t.app : second, started.device_code, client.clientId)).json().error);
          t.clock.advance(5);
        }
        expect(answers).toEqual(Array(6).fill('authorization_pending'));
        expect((await deviceRow(started.device_code))!.poll_interval_seconds).toBe(5);
        // The row keeps the latest time it was told: a poll at the instance behind never moves it back.
        const before = t.clock.now().getTime();
        expect((await pollAt(t.app, started.device_code, client.clientId)).json().error).toBe('authorization_pending');
        expect((await pollAt(second, started.device_code, client.clientId)).json().error).toBe('slow_down');
        expect((await deviceRow(started.device_code))!.last_polled_at!.getTime()).toBeGreaterThanOrEqual(before);
      });
    });

    test('an instance whose clock runs far ahead slows a device down once, not for as long as it is ahead', async () => {
      const client = await deviceClient();
      const started = await startDevice(client.clientId);
      await withSecondInstance(-60_000, async (ahead) => {
        const at = (app: FastifyInstance) => pollAt(app, started.device_code, client.clientId);
        expect((await at(ahead)).json().error).toBe('authorization_pending');
        t.clock.advance(5);
        // Sixty seconds "before" the last poll as the first instance sees it: too soon, once.
        expect((await at(t.app)).json().error).toBe('slow_down');
        const answers: string[] = [];
        for (let i = 0; i < 4; i++) {
          t.clock.advance(10);
          answers.push((await at(t.app)).json().error);
        }
        expect(answers).toEqual(Array(4).fill('authorization_pending'));
      });
    });
  });

  test('pending polls never fill the failure limiter', async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    for (let i = 0; i < 40; i++) {
      t.clock.advance(5);
      expect((await poll(client.clientId, started.device_code)).json().error).toBe('authorization_pending');
    }
  });

  test('expired and denied answers never fill the failure limiter: they need the real device code, and tell a device to stop (RFC 8628 §3.5)', async () => {
    const client = await deviceClient();
    const expired = await startDevice(client.clientId);
    t.clock.advance(590);
    const denied = await startDevice(client.clientId);
    await answer(denied.user_code, 'deny');
    t.clock.advance(11);
    const answers = new Set<string>();
    for (let i = 0; i < TOKEN_FAILURES_PER_MINUTE + 5; i++) answers.add((await poll(client.clientId, expired.device_code)).json().error);
    for (let i = 0; i < TOKEN_FAILURES_PER_MINUTE + 5; i++) answers.add((await poll(client.clientId, denied.device_code)).json().error);
    expect([...answers]).toEqual(['expired_token', 'access_denied']);
    // A wrong device code still counts: these failures fill the limiter as before.
    for (let i = 0; i < TOKEN_FAILURES_PER_MINUTE; i++) expect((await poll(client.clientId, 'x'.repeat(43))).json().error).toBe('invalid_grant');
    expect((await poll(client.clientId, 'x'.repeat(43))).statusCode).toBe(429);
  });

  test('a denied or expired code tells nothing to a client authenticating with a secret replaced meanwhile', async () => {
    const client = await deviceClient({ confidential: true });
    const denied = await startDeviceAs(client.clientId, client.secret!);
    await answer(denied.user_code, 'deny');
    const pollWith = (secret: string) => tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: denied.device_code },
      { authorization: `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}` });
    expect((await pollWith(client.secret!)).json().error).toBe('access_denied'); // the client is now held in memory
    await regenerateClientSecret(t.db, t.keys, client.clientId, t.clock.now());
    const stale = await pollWith(client.secret!);
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error).toBe('invalid_client');
  });

  test('expired device code: expired_token, also once approved', async () => {
    const client = await deviceClient();
    const waiting = await startDevice(client.clientId);
    const approved = await startDevice(client.clientId);
    await answer(approved.user_code, 'allow');
    t.clock.advance(601);
    for (const started of [waiting, approved]) {
      const response = await poll(client.clientId, started.device_code);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'expired_token', error_description: 'The device code has expired. Start again.' });
    }
    // Its user code is no longer accepted either.
    const late = await submit(waiting.user_code, 'check');
    expect(late.statusCode).toBe(400);
    expect(late.body).toContain('Diesen Code kennen wir nicht');
  });

  test('unknown, malformed or another client\'s device code: invalid_grant', async () => {
    const client = await deviceClient();
    const other = await deviceClient();
    const started = await startDevice(other.clientId);
    for (const code of ['x'.repeat(43), 'short', started.device_code]) {
      const response = await poll(client.clientId, code);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired device code' });
    }
    expect((await poll(client.clientId, '')).json()).toEqual({ error: 'invalid_request', error_description: 'device_code is required.' });
  });

  test('the member\'s session ended between approval and poll: invalid_grant, no grant', async () => {
    const client = await deviceClient();
    const other = await makeUser(t.db);
    const session = await logInAs(t.app, other);
    const started = await startDevice(client.clientId);
    const confirmed = await submit(started.user_code, 'confirm', { cookie: session.cookie });
    const browser = confirmedIn(confirmed, session.cookie);
    const consent = await t.app.inject({ url: confirmed.headers.location as string, headers: { cookie: browser } });
    await t.app.inject({
      method: 'POST', url: '/device/approve', headers: { cookie: browser, 'content-type': FORM },
      payload: new URLSearchParams({ ...formFields(consent.body), decision: 'allow' }).toString(),
    });
    await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers });
    const response = await poll(client.clientId, started.device_code);
    expect(response.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired device code' });
    expect((await deviceRow(started.device_code))!.grant_id).toBeNull();
  });

  test('the operator changed the client between approval and poll: a region required is invalid_grant, a scope taken is left out', async () => {
    const clientRowId = async (clientId: string) => (await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', clientId).executeTakeFirstOrThrow()).id;
    const regional = await deviceClient();
    const started = await startDevice(regional.clientId);
    expect((await answer(started.user_code, 'allow')).done.statusCode).toBe(200);
    await t.db.insertInto('oauth_client_regions').values({ client_id: await clientRowId(regional.clientId), region_id: await makeRegion(t.db) }).execute();
    expect((await poll(regional.clientId, started.device_code)).json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired device code' });
    expect((await deviceRow(started.device_code))!.grant_id).toBeNull();

    const narrowed = await deviceClient();
    const other = await startDevice(narrowed.clientId);
    expect((await answer(other.user_code, 'allow')).done.statusCode).toBe(200);
    await t.db.updateTable('oauth_clients').set({ scopes: ['openid'] }).where('client_id', '=', narrowed.clientId).execute();
    const tokens = await poll(narrowed.clientId, other.device_code);
    expect(tokens.statusCode).toBe(200);
    expect(tokens.json().scope).toBe('openid');
  });
});

describe('user codes at /device', () => {
  test('prefilled from verification_uri_complete, not looked up until the member submits', async () => {
    const page = await t.app.inject({ url: '/device?user_code=WDJB-MJHT' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('value="WDJB-MJHT"');
    expect(page.body).toContain('name="step" value="check"');
  });

  test('unknown and malformed codes get a clear message', async () => {
    const unknown = await submit('BBBB-BBBB', 'check', { remoteAddress: '10.1.0.1' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('Diesen Code kennen wir nicht, oder er ist abgelaufen oder wurde schon verwendet.');
    const malformed = await submit('ABC', 'check', { remoteAddress: '10.1.0.1' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('Das ist kein gültiger Code.');
    const forged = await t.app.inject({
      method: 'POST', url: '/device', headers: { 'content-type': FORM }, payload: 'user_code=BBBBBBBB&step=check&csrf_token=x',
    });
    expect(forged.statusCode).toBe(403);
  });

  test(`guessing limit per client address: ${USER_CODE_SOURCE_POLICY.free} wrong codes, then 429 even for the right one`, async () => {
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    const ip = '10.2.0.1';
    for (let i = 0; i < USER_CODE_SOURCE_POLICY.free; i++) expect((await submit('BBBB-BBBB', 'check', { remoteAddress: ip })).statusCode).toBe(400);
    const limited = await submit(started.user_code, 'check', { remoteAddress: ip });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.body).toContain('Zu viele falsche Codes. Bitte warte 60 Sekunden');
    // Another address is not refused; a right code counts as no guess.
    expect((await submit(started.user_code, 'check', { remoteAddress: '10.2.0.2' })).statusCode).toBe(200);
    await t.app.securityEvents.settled(); // the audit log is written in batches
    const events = await t.db.selectFrom('security_events').select('event').where('event', 'like', 'oauth.device.%').execute();
    expect(events.map((e) => e.event)).toContain('oauth.device.user_code_limited');
  });

  test('after waiting out the delay, the right code is checked and confirmed at once: a right code leaves the counters as they were', async () => {
    const client = await deviceClient();
    const ip = '10.2.1.1';
    for (let i = 0; i < USER_CODE_SOURCE_POLICY.free; i++) expect((await submit('BBBB-BBBB', 'check', { remoteAddress: ip })).statusCode).toBe(400);
    expect((await submit('BBBB-BBBB', 'check', { remoteAddress: ip })).statusCode).toBe(429);
    t.clock.advance(USER_CODE_SOURCE_POLICY.baseSeconds + 1);
    const counter = () => t.db.selectFrom('login_throttle').select(['failures', 'window_ends_at']).where('key', '=', `device-user-code:${ip}`).executeTakeFirstOrThrow();
    const before = await counter();
    const started = await startDevice(client.clientId);
    expect((await submit(started.user_code, 'check', { remoteAddress: ip })).statusCode).toBe(200);
    const confirmed = await submit(started.user_code, 'confirm', { remoteAddress: ip });
    expect(confirmed.statusCode).toBe(303);
    expect(await counter()).toEqual(before);
    // A wrong code is still a guess, and the next one waits its delay.
    expect((await submit('BBBB-BBBB', 'check', { remoteAddress: ip })).statusCode).toBe(400);
    expect((await submit('BBBB-BBBB', 'check', { remoteAddress: ip })).statusCode).toBe(429);
  });

  test(`guessing limit for all addresses together: ${USER_CODE_GLOBAL_POLICY.free} wrong codes, then one a second`, async () => {
    await t.db.deleteFrom('login_throttle').execute();
    const client = await deviceClient();
    const started = await startDevice(client.clientId);
    for (let i = 0; i < USER_CODE_GLOBAL_POLICY.free; i++) {
      const ip = `10.3.${Math.floor(i / 5)}.${i % 5}`;
      expect((await submit('BBBB-BBBB', 'check', { remoteAddress: ip })).statusCode).toBe(400);
    }
    const limited = await submit(started.user_code, 'confirm', { remoteAddress: '10.4.0.1' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect((await deviceRow(started.device_code))!.confirmed_at).toBeNull();
    t.clock.advance(1);
    expect((await submit(started.user_code, 'confirm', { remoteAddress: '10.4.0.1' })).statusCode).toBe(303);
    await t.db.deleteFrom('login_throttle').execute();
  });
});

describe('the device proves possession of a key (DPoP)', () => {
  /** The issuer (PUBLIC_URL of the app under test): proofs name its endpoints. */
  const ISSUER = 'http://localhost:8080';
  /** A DPoP proof (RFC 9449 §4.2) for the token endpoint, made with the device's key. */
  async function proof(pair: { publicKey: CryptoKey; privateKey: CryptoKey }, htm = 'POST', htu = `${ISSUER}/oauth/token`) {
    return new SignJWT({ jti: crypto.randomUUID(), htm, htu, iat: Math.floor(t.clock.now().getTime() / 1000) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(pair.publicKey) })
      .sign(pair.privateKey);
  }

  test('a poll with a proof gets DPoP-bound tokens; the public client\'s refresh token then needs the same key', async () => {
    const key = await generateKeyPair('ES256', { extractable: true });
    const jkt = await calculateJwkThumbprint(await exportJWK(key.publicKey));
    const client = await deviceClient();
    const started = await startDevice(client.clientId, 'openid profile');
    await answer(started.user_code, 'allow');
    t.clock.advance(5);

    const success = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: client.clientId }, { dpop: await proof(key) });
    expect(success.statusCode).toBe(200);
    const body = success.json();
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt });
    const grant = await t.db.selectFrom('oauth_grants').select('dpop_jkt').where('id', '=', (await deviceRow(started.device_code))!.grant_id!).executeTakeFirstOrThrow();
    expect(grant.dpop_jkt).toBe(jkt);

    // At userinfo the bound token is refused as a bearer token and accepted with a proof of the key.
    const asBearer = await t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${body.access_token}` } });
    expect(asBearer.statusCode).toBe(401);
    const userinfoProof = await new SignJWT({
      jti: crypto.randomUUID(), htm: 'GET', htu: `${ISSUER}/oauth/userinfo`, iat: Math.floor(t.clock.now().getTime() / 1000),
      ath: (await import('node:crypto')).createHash('sha256').update(body.access_token).digest('base64url'),
    }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(key.publicKey) }).sign(key.privateKey);
    const withProof = await t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `DPoP ${body.access_token}`, dpop: userinfoProof } });
    expect(withProof.statusCode).toBe(200);
    expect(withProof.json().sub).toBe(String(user.id));

    const refused = { error: 'invalid_grant', error_description: 'Invalid or expired refresh token' };
    const refresh = { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: client.clientId };
    const without = await tokenRequest(t, refresh);
    expect([without.statusCode, without.json()]).toEqual([400, refused]);
    const other = await generateKeyPair('ES256', { extractable: true });
    const withOther = await tokenRequest(t, refresh, { dpop: await proof(other) });
    expect([withOther.statusCode, withOther.json()]).toEqual([400, refused]);
    const own = await tokenRequest(t, refresh, { dpop: await proof(key) });
    expect(own.statusCode).toBe(200);
    expect(own.json().token_type).toBe('DPoP');
    expect(decodeJwt(own.json().access_token).cnf).toEqual({ jkt });
  });

  test('a proof for another endpoint is refused, and the device code stays unspent', async () => {
    const key = await generateKeyPair('ES256', { extractable: true });
    const client = await deviceClient();
    const started = await startDevice(client.clientId, 'openid');
    await answer(started.user_code, 'allow');
    t.clock.advance(5);
    const wrongHtu = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: client.clientId },
      { dpop: await proof(key, 'POST', `${ISSUER}/oauth/userinfo`) });
    expect(wrongHtu.statusCode).toBe(400);
    expect(wrongHtu.json().error).toBe('invalid_dpop_proof');
    expect((await deviceRow(started.device_code))!.status).not.toBe('used');
    t.clock.advance(5);
    const retried = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: client.clientId }, { dpop: await proof(key) });
    expect(retried.statusCode).toBe(200);
    expect(retried.json().token_type).toBe('DPoP');
  });
});

describe('the log', () => {
  test('holds no device code, user code or continuation, not even in request URLs', () => {
    expect(lines.length).toBeGreaterThan(100);
    expect(lines.join('\n')).toContain('/device?user_code=[redacted]');
    for (const secret of secrets) expect(lines.filter((line) => line.includes(secret))).toEqual([]);
  });
});
