import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { PETITION_CACHE_SECONDS, PETITION_RETRY_SECONDS } from '../../src/api/petition/petition.service.ts';
import { buildTestApp } from '../helpers/app.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeUser } from '../helpers/factories.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

type Mode = 'ok' | 'failing' | 'malformed' | 'wrong-shape' | 'out-of-range' | 'slow';

/** The petition source: a local HTTP server whose behaviour the test switches. */
let mode: Mode = 'ok';
let signatures = 1000;
let hits = 0;
let source: Server;
let port: number;
let orga: TestSession;

beforeAll(async () => {
  source = createServer((request, response) => {
    hits += 1;
    if (mode === 'slow') return; // never answers: the fetch must time out
    if (mode === 'failing') return void response.writeHead(500).end('oops');
    response.writeHead(200, { 'content-type': 'application/json' });
    if (mode === 'malformed') return void response.end('{"href": "https://petition.example/x", "signa');
    if (mode === 'out-of-range') return void response.end(JSON.stringify({ href: 'https://x.example/\u0000', signatures: 1e12, daysLeft: 1 }));
    if (mode === 'wrong-shape') return void response.end(JSON.stringify({ href: 'javascript:alert(1)', signatures: -5, daysLeft: 'soon' }));
    response.end(JSON.stringify({ href: 'https://petition.example/save-food', signatures, daysLeft: 12, extra: 'ignored' }));
  });
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
  port = (source.address() as AddressInfo).port;
});
afterAll(async () => {
  source.closeAllConnections();
  await new Promise((resolve) => source.close(resolve));
});
// Declared after the source's hooks: built once the source listens, closed before it stops.
const t = useTestApp(() => ({ env: { PETITION_SOURCE_URL: `http://127.0.0.1:${port}/petition.json`, PETITION_ALLOW_PRIVATE: 'true' } }));
beforeAll(async () => {
  orga = await t.as('orga');
});

const getPetition = (app = t.app) => app.inject({ url: '/api/petition' });
const setBanner = (state: boolean) => t.call('PATCH', `/api/feature-toggles/petitionBanner?newState=${state}`, orga);

describe('GET /api/petition', () => {
  it('answers 503 while the petitionBanner toggle is off, without asking the source', async () => {
    const response = await getPetition();
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 503, code: 'petition.unavailable' });
    expect(hits).toBe(0);
  });

  it('answers 503 when nothing was ever fetched because the source fails, and asks again only after a minute', async () => {
    await setBanner(true);
    mode = 'failing';
    expect((await getPetition()).statusCode).toBe(503);
    expect(hits).toBe(1);
    mode = 'ok';
    const unavailable = await getPetition();
    expect([unavailable.statusCode, unavailable.headers['cache-control']]).toEqual([503, 'no-store']);
    expect(hits).toBe(1);
    t.clock.advance(PETITION_RETRY_SECONDS + 1);
    const response = await getPetition();
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=60');
    expect(response.json()).toStrictEqual({ href: 'https://petition.example/save-food', signatures: 1000, daysLeft: 12 });
    expect(hits).toBe(2);
  });

  it('serves the cached data for 10 minutes, then fetches again', async () => {
    signatures = 2000;
    t.clock.advance(PETITION_CACHE_SECONDS - 60);
    expect((await getPetition()).json().signatures).toBe(1000);
    expect(hits).toBe(2);
    t.clock.advance(61);
    expect((await getPetition()).json().signatures).toBe(2000);
    expect(hits).toBe(3);
  });

  it('keeps the cache in the database, shared by every instance', async () => {
    const row = await t.db.selectFrom('petition_cache').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ href: 'https://petition.example/save-food', signatures: 2000, days_left: 12 });
    const handle = { db: t.db, kind: 'pglite' as const, ping: async () => {}, close: async () => {} };
    const second = await buildApp(t.config, { database: handle, keys: t.keys, clock: t.clock.now });
    try {
      mode = 'failing';
      const response = await getPetition(second);
      expect(response.json().signatures).toBe(2000);
      expect(hits).toBe(3);
    } finally {
      await second.close();
    }
  });

  it.each(['failing', 'malformed', 'wrong-shape', 'out-of-range', 'slow'] as const)('serves the last good data when the source is %s', async (failure) => {
    mode = failure;
    t.clock.advance(PETITION_CACHE_SECONDS + 1);
    const before = hits;
    const response = await getPetition();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual({ href: 'https://petition.example/save-food', signatures: 2000, daysLeft: 12 });
    expect(hits).toBe(before + 1);
  });

  it('asks the source once for twenty requests at once while the data is stale and the source hangs: each serves the last good data', async () => {
    mode = 'slow';
    t.clock.advance(PETITION_CACHE_SECONDS + 1);
    const before = hits;
    const answers = await Promise.all(Array.from({ length: 20 }, () => getPetition()));
    expect(answers.map((a) => [a.statusCode, a.json().signatures])).toEqual(Array.from({ length: 20 }, () => [200, 2000]));
    expect(hits).toBe(before + 1);
  });

  it('answers 503 again once the toggle is switched off', async () => {
    await setBanner(false);
    expect((await getPetition()).statusCode).toBe(503);
  });
});

describe('GET /api/petition without a configured source', () => {
  it('answers 503 even with the banner on', async () => {
    const bare = await buildTestApp();
    try {
      const admin = await logInAs(bare.app, await makeUser(bare.db, { role: 'orga' }));
      await bare.app.inject({ method: 'PATCH', url: '/api/feature-toggles/petitionBanner?newState=true', headers: admin.headers });
      const response = await bare.app.inject({ url: '/api/petition' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'petition.unavailable', detail: 'No petition source is configured.' });
    } finally {
      await bare.close();
    }
  });
});
