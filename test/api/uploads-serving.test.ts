/** Serving uploads (SPEC-API GET /api/uploads/{uuid}): public, from any instance on the database, conditional with If-None-Match. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { testConfig } from '../helpers/app.ts';
import { useTestApp } from '../helpers/fixture.ts';
import type { TestSession } from '../helpers/session.ts';

const MAX = 4096;
const t = useTestApp({ env: { MAX_UPLOAD_BYTES: String(MAX) } });
let user: TestSession;

beforeAll(async () => {
  user = await t.as('foodsaver');
});

function upload(payload: unknown, session: TestSession | null = user) {
  return t.call('POST', '/api/uploads', session, payload);
}

describe('GET /api/uploads/{uuid}', () => {
  it('answers 404 for an unknown uuid and 400 for something that is no uuid', async () => {
    expect((await t.app.inject({ url: '/api/uploads/8a1c2f5e-3b4d-4c6e-9f00-112233445566' })).statusCode).toBe(404);
    for (const bad of ['123', 'not-a-uuid', '8a1c2f5e-3b4d-4c6e-9f00-1122334455667', '..%2F..%2Fetc%2Fpasswd']) {
      expect((await t.app.inject({ url: `/api/uploads/${bad}` })).statusCode, bad).toBe(400);
    }
  });

  it('serves an upload from another instance on the same database: files live in the database, not on one machine', async () => {
    const created = (await upload({ filename: 'shared.bin', body: Buffer.from([9, 8, 7]).toString('base64') })).json();
    const { config, removeDataDir } = await testConfig({ MAX_UPLOAD_BYTES: String(MAX) });
    expect(config.dataDir).not.toBe(t.config.dataDir);
    const handle = { db: t.db, kind: 'pglite' as const, ping: async () => {}, close: async () => {} };
    const second = await buildApp(config, { database: handle, keys: t.keys, clock: t.clock.now });
    try {
      const response = await second.inject({ url: created.url });
      expect(response.statusCode).toBe(200);
      expect([...response.rawPayload]).toEqual([9, 8, 7]);
      expect(response.headers['content-disposition']).toBe("attachment; filename*=UTF-8''shared.bin");
      expect((await second.inject({ url: '/api/uploads/8a1c2f5e-3b4d-4c6e-9f00-112233445566' })).statusCode).toBe(404);
    } finally {
      await second.close();
      await removeDataDir();
    }
  });

  it('is public and accepts the uuid in upper case', async () => {
    const created = (await upload({ filename: 'a.bin', body: Buffer.from([1, 2, 3]).toString('base64') })).json();
    const response = await t.app.inject({ url: `/api/uploads/${created.uuid.toUpperCase()}` });
    expect(response.statusCode).toBe(200);
    expect([...response.rawPayload]).toEqual([1, 2, 3]);
  });
});

describe('GET /api/uploads/{uuid} with If-None-Match', () => {
  let url: string;
  let etag: string;
  beforeAll(async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    url = (await upload({ filename: 'dot.png', body: png })).json().url;
    etag = String((await t.app.inject({ url })).headers.etag);
  });

  it.each([
    ['the ETag itself', () => etag],
    ['its weak form', () => `W/${etag}`],
    ['a list holding it', () => `"other", ${etag}`],
    ['*', () => '*'],
  ])('answers 304 without a body, with ETag and Cache-Control, for %s', async (_name, header) => {
    const response = await t.app.inject({ url, headers: { 'if-none-match': header() } });
    expect(response.statusCode).toBe(304);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe(etag);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers 200 with the file for another tag', async () => {
    const response = await t.app.inject({ url, headers: { 'if-none-match': '"something-else", W/"x"' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.rawPayload.length).toBeGreaterThan(0);
  });

  it('answers 404 (not 304, nothing cacheable) for an unknown upload even with *', async () => {
    const response = await t.app.inject({ url: '/api/uploads/00000000-0000-4000-8000-000000000000', headers: { 'if-none-match': '*' } });
    expect(response.statusCode).toBe(404);
    expect(String(response.headers['cache-control'] ?? '')).not.toContain('immutable');
  });
});
