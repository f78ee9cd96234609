import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { installApiContext } from '../../src/api/plugin/context.ts';
import { testConfig, testKeys } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// A handler with a bug: the 500 must hide its cause and carry the request id.
let app: FastifyInstance;
let setup: Awaited<ReturnType<typeof testConfig>>;
let database: TestDatabase;
const logged: unknown[] = [];

beforeAll(async () => {
  setup = await testConfig();
  database = await createTestDatabase();
  app = await buildApp(setup.config, { database: database.handle, keys: await testKeys() });
  const bug = () => { throw new Error('relation "secret_table" does not exist at /srv/app/src/x.ts:12'); };
  app.get('/buggy-page', bug);
  await app.register(async (api) => {
    installApiContext(api);
    api.get('/buggy', bug);
  }, { prefix: '/api/test' });
  app.addHook('onError', async (_request, _reply, error) => { logged.push(error); });
  await app.ready();
});
afterAll(async () => { await app.close(); await database.drop(); await setup.removeDataDir(); });

describe('500', () => {
  it('/api: generic problem+json, request id header, cause only in the log', async () => {
    const response = await app.inject({ url: '/api/test/buggy' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ type: 'about:blank', title: 'Internal Server Error', status: 500, code: 'server.error',
      detail: 'An unexpected error occurred.' });
    expect(response.body).not.toContain('secret_table');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(logged.some((e) => String(e).includes('secret_table'))).toBe(true);
  });

  it('pages: the error view with the request id, no cause', async () => {
    const response = await app.inject({ url: '/buggy-page', headers: { 'accept-language': 'en' } });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('An unexpected error occurred.');
    expect(response.body).toContain(response.headers['x-request-id'] as string);
    expect(response.body).not.toContain('secret_table');
  });
});
