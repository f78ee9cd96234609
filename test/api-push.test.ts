import { stat } from 'node:fs/promises';
import { createPublicKey } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVapidKeys, VAPID_KEY_FILE } from '../src/api/push/vapid-keys.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { makeUser } from './helpers/factories.ts';
import { logInAs, type TestSession } from './helpers/session.ts';

let t: TestApp;
let user: TestSession;

beforeAll(async () => {
  t = await buildTestApp();
  user = await logInAs(t.app, await makeUser(t.db, { role: 'foodsharer' }));
});
afterAll(() => t.close());

const url = (type: string) => `/api/push-notification/${type}/server-information`;

function isP256Point(key: string): boolean {
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return false;
  createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, format: 'jwk' });
  return true;
}

describe('GET /api/push-notification/{type}/server-information', () => {
  it('gives webpush clients the VAPID public key: base64url of a 65-byte P-256 point', async () => {
    const response = await t.app.inject({ url: url('webpush'), headers: { cookie: user.cookie } });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { key: string };
    expect(Object.keys(body)).toEqual(['key']);
    expect(body.key).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(isP256Point(body.key)).toBe(true);
  });

  it('generated the key pair once into <dataDir>/keys with mode 0600 and reuses it', async () => {
    const file = path.join(t.config.dataDir, 'keys', VAPID_KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await loadVapidKeys(t.config);
    const response = await t.app.inject({ url: url('webpush'), headers: { cookie: user.cookie } });
    expect(again.publicKey).toBe(response.json().key);
  });

  it('answers 404 for another \\w+ type', async () => {
    for (const type of ['apns', 'fcm', 'WEBPUSH', '__proto__', 'constructor', '9'.repeat(150)]) {
      const response = await t.app.inject({ url: url(type), headers: { cookie: user.cookie } });
      expect(response.statusCode, type).toBe(404);
      expect(response.json()).toMatchObject({ code: 'push.unknown-type' });
    }
  });

  it('answers 400 for a type outside \\w+', async () => {
    for (const type of ['web-push', 'web%20push', 'a.b', '%C3%A4']) {
      const response = await t.app.inject({ url: url(type), headers: { cookie: user.cookie } });
      expect(response.statusCode, type).toBe(400);
    }
  });

  it('answers 401 when logged out', async () => {
    const response = await t.app.inject({ url: url('webpush') });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'auth.unauthenticated' });
  });
});

describe('configured VAPID keys', () => {
  it('serves the configured public key and refuses a malformed one at start', async () => {
    const { publicKey, privateKey } = await loadVapidKeys(t.config);
    const configured = await buildTestApp({ env: { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey } });
    try {
      const session = await logInAs(configured.app, await makeUser(configured.db));
      const response = await configured.app.inject({ url: url('webpush'), headers: { cookie: session.cookie } });
      expect(response.json()).toEqual({ key: publicKey });
    } finally {
      await configured.close();
    }
    await expect(loadVapidKeys({ ...t.config, vapidPublicKey: 'abc', vapidPrivateKey: privateKey })).rejects.toThrow(/VAPID/);
    const offCurve = Buffer.alloc(65, 1);
    offCurve[0] = 4;
    await expect(loadVapidKeys({ ...t.config, vapidPublicKey: offCurve.toString('base64url'), vapidPrivateKey: privateKey })).rejects.toThrow();
  });
});
