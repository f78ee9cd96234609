import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { testConfig, testKeys } from '../helpers/app.ts';

// A database that refuses connections (nothing listens on port 1): every
// answer stays clean, nothing leaks, nothing crashes.
let app: FastifyInstance;
let setup: Awaited<ReturnType<typeof testConfig>>;
let database: DatabaseHandle;
const sessionCookie = `fs_session=${'a'.repeat(43)}`;

beforeAll(async () => {
  setup = await testConfig();
  database = await openDatabase({ kind: 'postgres', url: 'postgres://postgres@127.0.0.1:1/unreachable', poolSize: 1 });
  app = await buildApp(setup.config, { database, keys: await testKeys() });
  await app.ready();
});
afterAll(async () => { await app.close(); await database.close(); await setup.removeDataDir(); });

describe('database outage', () => {
  it('/health still answers 200; /ready answers 503', async () => {
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    const response = await app.inject({ url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'unavailable', detail: 'database not reachable', down: ['database'] });
  });

  it('/api answers 503 problem+json without the cause, with a request id', async () => {
    const response = await app.inject({ url: '/api/user/current', headers: { cookie: sessionCookie } });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'server.unavailable',
      detail: 'The service is temporarily unavailable. Please try again shortly.' });
    expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at /);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('pages show the error view with the request id and no cause', async () => {
    const login = await app.inject({ method: 'POST', url: '/login', payload: 'email=a%40b.de&password=x&csrf_token=t',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'CSRF_TOKEN=t' } });
    expect(login.statusCode).toBe(503);
    expect(login.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(login.body).toContain(login.headers['x-request-id'] as string);
    expect(login.body).toContain('Der Dienst ist vorübergehend nicht erreichbar.');
    expect(login.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});
