/**
 * A DPoP proof is used once across instances (RFC 9449 §11.1): two apps on one
 * database (PGlite: one handle shared, as one process owns its data directory;
 * PostgreSQL: two connection pools on one schema) share the table of used
 * proofs, so a proof accepted by one is refused by the other.
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import type { AppUnderTest } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { siblingDatabases } from '../helpers/sibling-databases.ts';
import { makeClient, tokenRequest } from '../helpers/oauth.ts';

const clock = new TestClock();
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function twoInstances(): Promise<[AppUnderTest, AppUnderTest]> {
  const { config, keys, first, second } = await siblingDatabases(cleanup);
  const build = async (handle: DatabaseHandle): Promise<AppUnderTest> => {
    const app = await buildApp(config, { database: handle, keys, clock: clock.now });
    await app.ready();
    cleanup.push(() => app.close());
    return { app, db: handle.db, config, keys, clock, baseUrl: '', listen: () => Promise.reject(new Error('not listening')) };
  };
  return [await build(first), await build(second)];
}

describe('two instances', () => {
  it('a proof accepted by one is a replay at the other', async () => {
    const [a, b] = await twoInstances();
    const client = await makeClient(a);
    const key = await generateKeyPair('ES256', { extractable: true });
    const proof = await new SignJWT({ jti: crypto.randomUUID(), htm: 'POST', htu: `${a.config.publicUrl}/oauth/token`, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(key.publicKey) }).sign(key.privateKey);
    const form = { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: client.secret! };
    const first = await tokenRequest(a, form, { dpop: proof });
    expect(first.json().error).toBe('invalid_grant'); // the proof passed; the bogus refresh token did not
    const replay = await tokenRequest(b, form, { dpop: proof });
    expect([replay.statusCode, replay.json()]).toEqual([400, { error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used before (jti).' }]);
  });
});
