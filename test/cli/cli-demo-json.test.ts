/**
 * `foodsharing demo --json` prints every demo
 * object with its ids: stores with managers, members, posts and pickup times;
 * baskets and requests; polls with author, start and end; quizzes and
 * sessions; contents; reports with reporter and reported user; feature
 * toggles; the region pin. Run as an operator runs it, on its own data directory.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.ts';
import { makeDataDir, runBin, runInProcess } from './cli-helpers.ts';

const id = expect.any(Number);
const user = { id, email: expect.stringMatching(/@example\.org$/) };
const dateTime = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

let dataDir: string;
let removeDataDir: () => Promise<void>;
let demo: Record<string, any>;

beforeAll(async () => {
  ({ dataDir, remove: removeDataDir } = await makeDataDir({ migrated: true }));
  let out = '';
  const code = await runCli(['demo', '--json'], {
    out: { write: (s: string) => { out += s; } },
    err: { write: () => {} },
    env: { NODE_ENV: 'test', DATA_DIR: dataDir },
  });
  expect(code).toBe(0);
  demo = JSON.parse(out);
}, 120_000);
afterAll(() => removeDataDir());

describe('cli demo --json', () => {
  it('prints the stores with managers, members, standby, wall posts and pickup times', () => {
    const stores = demo.community.stores as any[];
    expect(stores.length).toBeGreaterThanOrEqual(2);
    for (const store of stores) {
      expect(store).toMatchObject({ id, name: expect.any(String), regionId: id });
      for (const group of ['managers', 'members', 'standby']) {
        expect(store[group].length, group).toBeGreaterThan(0);
        for (const member of store[group]) expect(member).toEqual(user);
      }
      for (const post of store.posts) expect(post).toEqual({ id, authorId: id, text: expect.any(String), createdAt: dateTime });
      for (const pickup of store.pickups) {
        expect(pickup).toMatchObject({ id, at: dateTime, capacity: id });
        for (const signup of pickup.signedUp) expect(signup).toEqual({ userId: id, isConfirmed: expect.any(Boolean) });
      }
    }
    expect(stores.flatMap((s) => s.posts).length).toBeGreaterThan(0);
    expect(stores.flatMap((s) => s.pickups).length).toBeGreaterThan(0);
  });

  it('prints baskets with their requests, and polls with author, start and end', () => {
    const baskets = demo.sharing.baskets as any[];
    expect(baskets.length).toBeGreaterThan(0);
    for (const basket of baskets) expect(basket).toMatchObject({ id, creator: user, until: dateTime });
    const requests = baskets.flatMap((b) => b.requests);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(request).toMatchObject({ user, status: expect.any(Number) });
    const polls = demo.sharing.polls as any[];
    expect(polls.map((p) => p.hasStarted).sort()).toEqual([false, true]);
    for (const poll of polls) expect(poll).toMatchObject({ id, regionId: id, author: user, startDate: dateTime, endDate: dateTime });
  });

  it('prints quizzes with sessions of each status, contents, the region pin, reports and feature toggles', () => {
    const quizzes = demo.community.quizzes as any[];
    const sessions = quizzes.flatMap((q) => q.sessions);
    for (const session of sessions) expect(session).toMatchObject({ id, foodsaverId: id, status: expect.any(Number) });
    expect([...new Set(sessions.map((s) => s.status))].sort()).toEqual([0, 1, 2]);
    expect(demo.community.contents.length).toBeGreaterThan(0);
    for (const content of demo.community.contents) expect(content).toMatchObject({ id, name: expect.any(String), title: expect.any(String) });
    expect(demo.community.regionPins).toEqual([expect.objectContaining({ regionId: id, lat: expect.any(Number), lon: expect.any(Number), status: 1 })]);
    expect(demo.community.reports.length).toBeGreaterThan(0);
    for (const report of demo.community.reports) expect(report).toMatchObject({ id, reporter: user, reported: user });
    expect(demo.sharing.featureToggles).toContainEqual({ identifier: 'petitionBanner', isActive: true });
  });
});

describe('cli demo on a database that already holds it', () => {
  it('demo --json prints the loaded demo\'s ids again, exit 0 (through the bin)', async () => {
    const again = await runBin(dataDir, ['demo', '--json']);
    expect(again).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(again.out)).toEqual(JSON.parse(JSON.stringify(demo)));
    const text = await runInProcess(dataDir, ['demo']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^Demo dataset already loaded; its ids as loaded:\nRegions:\n/);
    expect(text.out).toContain('foodsaver@example.org');
  });

  it('a database with other users and no demo is refused, exit 1', async () => {
    const { dataDir: other, remove } = await makeDataDir({ migrated: true });
    try {
      expect((await runInProcess(other, ['user', 'add', '--email', 'x@example.test', '--first-name', 'X', '--last-name', 'Y'], 'long enough\n')).code).toBe(0);
      const refused = await runInProcess(other, ['demo', '--json']);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.out)).toEqual({ error: 'The database already holds users; the demo dataset is loaded only into an empty database.' });
    } finally {
      await remove();
    }
  });

  it('is refused in production, before touching the keys or the database', async () => {
    const productionDir = await mkdtemp(path.join(tmpdir(), 'fs-cli-prod-'));
    try {
      // Nothing listens on port 1: reaching for the database would fail with a connection error instead.
      const env = { NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.org', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unreachable', DATA_DIR: productionDir, MAIL: 'off' };
      const message = 'The demo dataset is never loaded in production (NODE_ENV=production): its accounts have published passwords.';
      const json = await runBin(productionDir, ['demo', '--json'], { env });
      expect(json).toEqual({ code: 1, out: `${JSON.stringify({ error: message })}\n`, err: '' });
      const text = await runInProcess(productionDir, ['demo'], '', env);
      expect(text).toEqual({ code: 1, out: '', err: `error: ${message}\n` });
      expect(await readdir(productionDir)).toEqual([]); // no keys generated
    } finally {
      await rm(productionDir, { recursive: true, force: true });
    }
  });
});
