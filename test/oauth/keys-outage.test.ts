import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { KEY_RELOAD_SECONDS } from '../../src/oauth/keys/key-store.ts';
import { testConfig, testKeys } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { switchableDatabase, type SwitchableDatabase } from '../helpers/switchable-database.ts';

// Discovery and the JWKS are what relying parties need to verify tokens they already hold: a database
// outage must not take them away once the keys were loaded.
const tokenRequest = {
  method: 'POST' as const, url: '/oauth/token', payload: 'grant_type=authorization_code&code=x&client_id=demo-app',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
};

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => { await cleanup?.(); cleanup = undefined; });

async function start(): Promise<{ app: FastifyInstance; outage: SwitchableDatabase; clock: TestClock }> {
  const setup = await testConfig();
  const database: TestDatabase = await createTestDatabase();
  const outage = switchableDatabase(database.handle);
  const clock = new TestClock();
  const app = await buildApp(setup.config, { database: outage.handle, keys: await testKeys(), clock: clock.now });
  await app.ready();
  cleanup = async () => { await app.close(); await database.drop(); await setup.removeDataDir(); };
  return { app, outage, clock };
}

describe('keys during a database outage', () => {
  it('JWKS and discovery answer 200 with the keys last loaded; the token endpoint answers 503', async () => {
    const { app, outage, clock } = await start();
    const jwks = await app.inject({ url: '/.well-known/jwks.json' });
    const discovery = await app.inject({ url: '/.well-known/openid-configuration' });
    expect([jwks.statusCode, discovery.statusCode]).toEqual([200, 200]);
    expect(jwks.json<{ keys: unknown[] }>().keys).toHaveLength(3); // RS256, ES256, EdDSA

    outage.fail();
    clock.advance(KEY_RELOAD_SECONDS + 1); // every reload interval has passed: the store tries the database
    for (let i = 0; i < 3; i++) {
      const during = await app.inject({ url: '/.well-known/jwks.json' });
      expect(during.statusCode).toBe(200);
      expect(during.body).toBe(jwks.body);
      expect(during.headers['cache-control']).toBe(jwks.headers['cache-control']);
      const metadata = await app.inject({ url: '/.well-known/openid-configuration' });
      expect(metadata.statusCode).toBe(200);
      expect(metadata.body).toBe(discovery.body);
    }
    const token = await app.inject(tokenRequest);
    expect(token.statusCode).toBe(503);
    expect(token.body).not.toMatch(/ECONNREFUSED|simulated/);
    expect((await app.inject({ url: '/ready' })).statusCode).toBe(503);

    outage.recover();
    clock.advance(KEY_RELOAD_SECONDS + 1);
    const after = await app.inject({ url: '/.well-known/jwks.json' });
    expect(after.statusCode).toBe(200);
    expect(after.body).toBe(jwks.body);
    expect((await app.inject(tokenRequest)).statusCode).toBe(401); // unknown client: the database answers again
  });

  it('before any key was loaded, the JWKS answers 503 (there is nothing to answer from), then 200 once the database is back', async () => {
    const { app, outage } = await start();
    outage.fail();
    const refused = await app.inject({ url: '/.well-known/jwks.json' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ error: expect.any(String) });
    expect((await app.inject({ url: '/.well-known/openid-configuration' })).statusCode).toBe(200);

    outage.recover();
    const jwks = await app.inject({ url: '/.well-known/jwks.json' });
    expect(jwks.statusCode).toBe(200);
    expect(jwks.json<{ keys: unknown[] }>().keys).toHaveLength(3); // RS256, ES256, EdDSA
  });
});
