/**
 * The petition fetch reaches only public addresses unless
 * PETITION_ALLOW_PRIVATE=true: checked after DNS resolution and on every
 * redirect hop. The tests run on loopback, so the refusals are proven with
 * local servers that count the requests reaching them, and the redirect hops
 * with a policy that allows 127.0.0.1 but not 127.0.0.2.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPetitionData } from '../../src/api/petition/petition.source.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { makeUser } from '../helpers/factories.ts';
import { logInAs } from '../helpers/session.ts';

const DATA = { href: 'https://petition.example/save-food', signatures: 42, daysLeft: 7 };

interface Counted { server: Server; url: string; hits: number }

async function serve(host: string, handler: (hits: number) => RequestListener): Promise<Counted> {
  const counted = { hits: 0 } as Counted;
  counted.server = createServer((request, response) => {
    counted.hits += 1;
    handler(counted.hits)(request, response);
  });
  await new Promise<void>((resolve) => counted.server.listen(0, host, resolve));
  counted.url = `http://${host}:${(counted.server.address() as AddressInfo).port}`;
  return counted;
}

const json: RequestListener = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(DATA));
};
const redirectTo = (location: () => string): RequestListener => (_request, response) => {
  response.writeHead(302, { location: location() }).end();
};

let inner: Counted;
let local: Counted;
let outer: Counted;
let loop: Counted;
beforeAll(async () => {
  inner = await serve('127.0.0.2', () => json);
  local = await serve('127.0.0.1', () => json);
  outer = await serve('127.0.0.1', () => redirectTo(() => `${inner.url}/petition.json`));
  loop = await serve('127.0.0.1', (hits) => redirectTo(() => `${loop.url}/again/${hits}`));
});
afterAll(async () => {
  for (const { server } of [inner, local, outer, loop]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const only127001 = (address: string) => address === '127.0.0.1';

describe('the petition fetch and private addresses', () => {
  it('follows a redirect to an allowed address (the setup reaches the inner server)', async () => {
    const before = inner.hits;
    await expect(fetchPetitionData(`${outer.url}/start`, { timeoutMs: 5000, isAllowedAddress: () => true })).resolves.toEqual(DATA);
    expect(inner.hits).toBe(before + 1);
  });

  it('refuses a redirect hop to an address the policy does not allow, without a request reaching it', async () => {
    const before = inner.hits;
    await expect(fetchPetitionData(`${outer.url}/start`, { timeoutMs: 5000, isAllowedAddress: only127001 })).resolves.toBeNull();
    expect(inner.hits).toBe(before);
  });

  it('gives up after three redirects', async () => {
    await expect(fetchPetitionData(`${loop.url}/start`, { timeoutMs: 5000, isAllowedAddress: () => true })).resolves.toBeNull();
    expect(loop.hits).toBe(4);
  });

  it.each([
    ['an IP literal', () => `${local.url}/petition.json`, {}],
    ['a name that resolves to loopback (after DNS resolution)', () => `${local.url.replace('127.0.0.1', 'localhost')}/petition.json`, {}],
    ['an IP literal, with PETITION_ALLOW_PRIVATE=false', () => `${local.url}/petition.json`, { PETITION_ALLOW_PRIVATE: 'false' }],
  ])('by default refuses %s on loopback: GET /api/petition is 503 and no request reaches the source', async (_name, url, env) => {
    const t = await appWithSource(url(), env);
    const before = local.hits;
    const response = await t.app.inject({ url: '/api/petition' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'petition.unavailable' });
    expect(local.hits).toBe(before);
    await t.close();
  });

  it('reaches the same loopback source by name when the policy allows loopback (the name test above is meaningful)', async () => {
    const before = local.hits;
    const url = `${local.url.replace('127.0.0.1', 'localhost')}/petition.json`;
    await expect(fetchPetitionData(url, { timeoutMs: 5000, isAllowedAddress: () => true })).resolves.toEqual(DATA);
    expect(local.hits).toBe(before + 1);
  });

  it('with PETITION_ALLOW_PRIVATE=true fetches from loopback, redirects included', async () => {
    const t = await appWithSource(`${outer.url}/start`, { PETITION_ALLOW_PRIVATE: 'true' });
    const response = await t.app.inject({ url: '/api/petition' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(DATA);
    await t.close();
  });
});

async function appWithSource(url: string, env: Record<string, string>): Promise<TestApp> {
  const t = await buildTestApp({ env: { PETITION_SOURCE_URL: url, ...env } });
  const orga = await logInAs(t.app, await makeUser(t.db, { role: 'orga' }));
  const toggle = await t.app.inject({ method: 'PATCH', url: '/api/feature-toggles/petitionBanner?newState=true', headers: orga.headers });
  expect(toggle.statusCode).toBe(200);
  return t;
}
