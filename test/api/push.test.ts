import { readdir } from 'node:fs/promises';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadVapidKeys } from '../../src/api/push/vapid-keys.ts';
import { buildApp } from '../../src/app.ts';
import { buildTestApp, testConfig } from '../helpers/app.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeUser } from '../helpers/factories.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
let user: TestSession;

beforeAll(async () => {
  user = await t.as('foodsharer');
});

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

  it('without configuration, derives one pair per deployment from the encryption key: same key, same pair; nothing stored', async () => {
    const response = await t.app.inject({ url: url('webpush'), headers: { cookie: user.cookie } });
    const { config, removeDataDir } = await testConfig(); // another instance: its own DATA_DIR, the same encryption key
    try {
      expect((await loadVapidKeys(config, t.keys)).publicKey).toBe(response.json().key);
      const other = await loadVapidKeys(config, { ...t.keys, encryptionKey: new Uint8Array(32).fill(9) });
      expect(other.publicKey).not.toBe(response.json().key);
      expect(isP256Point(other.publicKey)).toBe(true);
      expect(await readdir(config.dataDir)).toEqual([]);
      expect(await readdir(t.config.dataDir)).toEqual([]);
    } finally {
      await removeDataDir();
    }
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
    const { publicKey, privateKey } = await loadVapidKeys(t.config, t.keys);
    const configured = await buildTestApp({ env: { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey } });
    try {
      const session = await logInAs(configured.app, await makeUser(configured.db));
      const response = await configured.app.inject({ url: url('webpush'), headers: { cookie: session.cookie } });
      expect(response.json()).toEqual({ key: publicKey });
    } finally {
      await configured.close();
    }
    await expect(loadVapidKeys({ ...t.config, vapidPublicKey: 'abc', vapidPrivateKey: privateKey }, t.keys)).rejects.toThrow(/VAPID/);
    const offCurve = Buffer.alloc(65, 1);
    offCurve[0] = 4;
    await expect(loadVapidKeys({ ...t.config, vapidPublicKey: offCurve.toString('base64url'), vapidPrivateKey: privateKey }, t.keys)).rejects.toThrow();
  });
});

describe('a configured VAPID pair that does not belong together', () => {
  function generatePair(): { publicKey: string; privateKey: string } {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    return { publicKey: point.toString('base64url'), privateKey: jwk.d! };
  }

  it('stops the start with a message naming VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY', async () => {
    const [a, b] = [generatePair(), generatePair()];
    await expect(loadVapidKeys({ ...t.config, vapidPublicKey: a.publicKey, vapidPrivateKey: a.privateKey }, t.keys)).resolves.toEqual(a);
    const mismatch = /VAPID keys \(VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY\) do not belong together: VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY/;
    await expect(loadVapidKeys({ ...t.config, vapidPublicKey: a.publicKey, vapidPrivateKey: b.privateKey }, t.keys)).rejects.toThrow(mismatch);
    const { config, removeDataDir } = await testConfig({ VAPID_PUBLIC_KEY: a.publicKey, VAPID_PRIVATE_KEY: b.privateKey });
    try {
      const handle = { db: t.db, kind: 'pglite' as const, ping: async () => {}, close: async () => {} };
      await expect(buildApp(config, { database: handle, keys: t.keys })).rejects.toThrow(mismatch);
    } finally {
      await removeDataDir();
    }
  });

  it('refuses a private key that is no P-256 scalar', async () => {
    const { publicKey } = generatePair();
    const order = Buffer.from('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', 'hex');
    for (const scalar of [Buffer.alloc(32), order]) {
      await expect(loadVapidKeys({ ...t.config, vapidPublicKey: publicKey, vapidPrivateKey: scalar.toString('base64url') }, t.keys))
        .rejects.toThrow('VAPID_PRIVATE_KEY is not a valid P-256 private key');
    }
  });
});
