/**
 * After `keys rotate`, a sibling instance verifies the new
 * key's tokens at once, publishes the new key and signs with it. Two apps on
 * one database (PGlite: one handle shared, as one process owns its data
 * directory; PostgreSQL: two connection pools on one schema), with a clock that
 * stands still, so that no reload by age can explain what a sibling knows: it
 * learns of the rotation from a token naming the new key, or (PostgreSQL) from
 * the database's notification.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { sql, type KyselyPlugin } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { KEY_PUBLISH_LEAD_SECONDS, UNKNOWN_KID_RELOAD_SECONDS } from '../../src/oauth/keys/key-store.ts';
import { rotateSigningKey } from '../../src/oauth/keys/signing-keys.ts';
import type { AppUnderTest } from '../helpers/app.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';
import { siblingDatabases } from '../helpers/sibling-databases.ts';

const clock = new FrozenClock(new Date());

/** Counts the loads of signing keys (the key store's one query) through a Kysely plugin on the real database. */
function countingKeyLoads(handle: DatabaseHandle): { handle: DatabaseHandle; loads: () => number } {
  let loads = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      const node = JSON.stringify(args.node);
      if (args.node.kind === 'SelectQueryNode' && node.includes('"oauth_signing_keys"') && node.includes('"private_jwe"')) loads += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { handle: { ...handle, db: handle.db.withPlugin(plugin) }, loads: () => loads };
}

/** The handle without `listen`: nothing but the requests themselves can tell the app of a rotation. */
function deaf(handle: DatabaseHandle): DatabaseHandle {
  return { db: handle.db, kind: handle.kind, ping: () => handle.ping(), close: () => handle.close() };
}

interface Pair { a: AppUnderTest; b: AppUnderTest; bLoads: () => number }

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Two instances on one database; `adapt` shapes each instance's handle (PostgreSQL: B has a pool of its own). */
async function twoInstances(adapt: (handle: DatabaseHandle, name: 'a' | 'b') => DatabaseHandle): Promise<Pair> {
  const { config, keys, first, second } = await siblingDatabases(cleanup);
  const counted = countingKeyLoads(adapt(second, 'b'));
  const build = async (handle: DatabaseHandle): Promise<AppUnderTest> => {
    const app = await buildApp(config, { database: handle, keys, clock: clock.now });
    await app.ready();
    cleanup.push(() => app.close());
    return { app, db: handle.db, config, keys, clock, baseUrl: '', listen: () => Promise.reject(new Error('not listening')) };
  };
  return { a: await build(adapt(first, 'a')), b: await build(counted.handle), bLoads: counted.loads };
}

/** The RS256 keys of the JWKS (the default clients' algorithm; every algorithm rotates alike). */
async function jwksKids(app: FastifyInstance): Promise<string[]> {
  const response = await app.inject({ url: '/.well-known/jwks.json' });
  expect(response.statusCode).toBe(200);
  return response.json<{ keys: { kid: string; alg: string }[] }>().keys.filter((k) => k.alg === 'RS256').map((k) => k.kid).sort(); // one activation time here: the order is the kids'
}

interface Signed { user: TestUser; clientId: string; tokens: { access_token: string; id_token: string } }

/** A member signs in to a (public) client on `t` and gets its tokens there; `again` names the member and client of an earlier sign-in. */
async function tokensOn(t: AppUnderTest, again?: Omit<Signed, 'tokens'>): Promise<Signed> {
  const user = again?.user ?? await makeUser(t.db);
  const clientId = again?.clientId ?? (await makeClient(t, { confidential: false })).clientId;
  const { cookie } = await logInAs(t.app, user);
  const code = await obtainCode(t, { clientId, cookie, scope: 'openid' });
  const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: clientId });
  expect(response.statusCode, response.body).toBe(200);
  return { user, clientId, tokens: response.json() };
}

const userinfo = (app: FastifyInstance, token: string) => app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${token}` } });
const kidOf = (token: string) => decodeProtectedHeader(token).kid;

describe('a sibling meeting a token of a key rotated in by another instance', () => {
  it('accepts it on the first request (concurrent requests share one reload), then publishes and signs with the new key', async () => {
    const { a, b, bLoads } = await twoInstances(deaf);
    const [first] = await jwksKids(b.app); // B has loaded its keys before the rotation
    expect(bLoads()).toBe(1);
    const { activated: { RS256: kid } } = await rotateSigningKey(a.db, a.keys, 2048, clock.now); // what `keys rotate` runs
    const signed = await tokensOn(a); // A's first load comes after the rotation: it signs with the new key
    expect(kidOf(signed.tokens.access_token)).toBe(kid);

    const answers = await Promise.all(Array.from({ length: 5 }, () => userinfo(b.app, signed.tokens.access_token)));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]!.json()).toMatchObject({ sub: String(signed.user.id) });
    expect(bLoads()).toBe(2);
    expect(await jwksKids(b.app)).toEqual([kid, first].sort());
    expect(kidOf((await tokensOn(b, signed)).tokens.id_token)).toBe(kid);
  });

  it('accepts an id_token_hint of the new key at /oauth/logout on the first request', async () => {
    const { a, b } = await twoInstances(deaf);
    await jwksKids(b.app);
    const { activated: { RS256: kid } } = await rotateSigningKey(a.db, a.keys, 2048, clock.now);
    const signed = await tokensOn(a);
    expect(kidOf(signed.tokens.id_token)).toBe(kid);
    const logout = await b.app.inject({ url: `/oauth/logout?${new URLSearchParams({ id_token_hint: signed.tokens.id_token })}` });
    expect(logout.statusCode).toBe(200);
    expect(logout.body).not.toContain('Invalid id_token_hint');
  });
});

describe('tokens naming made-up keys', () => {
  async function forged(): Promise<string> {
    const { privateKey } = await generateKeyPair('RS256');
    return new SignJWT({ sub: '1', scope: 'openid', client_id: 'x', jti: '1.x' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: randomBytes(32).toString('base64url') })
      .setIssuer('http://localhost:8080').setIssuedAt().setExpirationTime('1h').sign(privateKey);
  }

  it('are refused, and cause at most one reload per interval, however many arrive', async () => {
    const { b, bLoads } = await twoInstances(deaf);
    await jwksKids(b.app);
    const tokens = await Promise.all(Array.from({ length: 12 }, forged));
    const refused = async (token: string) => {
      const response = await userinfo(b.app, token);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="The access token was not signed by a key of this server."');
    };
    await Promise.all(tokens.slice(0, 4).map(refused));
    for (const token of tokens.slice(4, 8)) await refused(token);
    expect(bLoads()).toBe(2); // the first load, and one for the first made-up kid

    clock.advance(UNKNOWN_KID_RELOAD_SECONDS);
    for (const token of tokens.slice(8)) await refused(token);
    expect(bLoads()).toBe(3);
  });
});

/**
 * B's handle tells the test when (and on which backend) B listens, and drops the notifications
 * `deafTo` says it misses, as a connection that was down would; A stays deaf (the changes are made
 * there).
 */
function listeningB(deafTo: (listens: readonly number[]) => boolean = () => false): { adapt: (handle: DatabaseHandle, name: 'a' | 'b') => DatabaseHandle; listens: number[]; listening: Promise<void> } {
  const listens: number[] = [];
  let heard!: () => void;
  const listening = new Promise<void>((resolve) => { heard = resolve; });
  const adapt = (handle: DatabaseHandle, name: 'a' | 'b'): DatabaseHandle => name === 'a' ? deaf(handle) : {
    ...handle,
    listen: (channel, handlers) => handle.listen!(channel, {
      ...handlers,
      onNotify: () => { if (!deafTo(listens)) handlers.onNotify(); },
      onListening: (info) => { listens.push(info.backendPid); handlers.onListening(info); heard(); },
    }),
  };
  return { adapt, listens, listening };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000; // the clock stands still: only the notification can make this come true
  while (!await check()) {
    if (Date.now() > deadline) throw new Error('the sibling never learnt of the change');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(TEST_DATABASE_URL === undefined)('PostgreSQL: the database announces every change of the keys', () => {
  it('a rotation reaches the sibling\'s JWKS and signer without any request naming the key; so does a key deleted by hand', async () => {
    const { adapt, listening } = listeningB();
    const { a, b, bLoads } = await twoInstances(adapt);
    await listening;
    const [first] = await jwksKids(b.app);
    const { activated: { RS256: kid } } = await rotateSigningKey(a.db, a.keys, 2048, clock.now);
    await until(async () => (await jwksKids(b.app)).includes(kid));
    expect(await jwksKids(b.app)).toEqual([kid, first].sort());
    expect(kidOf((await tokensOn(b)).tokens.id_token)).toBe(kid);

    const loads = bLoads();
    await a.db.deleteFrom('oauth_signing_keys').where('kid', '=', first!).execute(); // an operator's SQL after a compromise
    await until(async () => !(await jwksKids(b.app)).includes(first!));
    expect(await jwksKids(b.app)).toEqual([kid]);
    expect(bLoads()).toBe(loads + 1);
  });
});

describe.skipIf(TEST_DATABASE_URL === undefined)('PostgreSQL: a rotation as `keys rotate` makes it there, published before it signs', () => {
  it('the sibling lists the new key while every instance still signs with the old one, then signs with it when its time comes, with no further load', async () => {
    const { adapt, listening } = listeningB();
    const { a, b, bLoads } = await twoInstances(adapt);
    await listening;
    const [first] = await jwksKids(b.app);
    const { activated: { RS256: kid } } = await rotateSigningKey(a.db, a.keys, 2048, clock.now, undefined, KEY_PUBLISH_LEAD_SECONDS);
    await until(async () => (await jwksKids(b.app)).includes(kid));
    const loads = bLoads();
    expect(await jwksKids(b.app)).toEqual([kid, first].sort());
    const before = await tokensOn(b);
    expect([kidOf(before.tokens.id_token), kidOf(before.tokens.access_token)]).toEqual([first, first]);
    expect(kidOf((await tokensOn(a)).tokens.id_token)).toBe(first);

    clock.advance(KEY_PUBLISH_LEAD_SECONDS);
    const after = await tokensOn(b, before);
    expect([kidOf(after.tokens.id_token), kidOf(after.tokens.access_token)]).toEqual([kid, kid]);
    expect(bLoads()).toBe(loads);
    expect((await userinfo(a.app, after.tokens.access_token)).statusCode).toBe(200);
    expect(await jwksKids(b.app)).toEqual([kid, first].sort());
  });
});

describe.skipIf(TEST_DATABASE_URL === undefined)('PostgreSQL: a listening connection lost and restored', () => {
  it('reloads the keys when it listens again: a rotation announced while it was down is not missed', async () => {
    const { adapt, listens, listening } = listeningB((heard) => heard.length < 2); // the first connection misses everything
    const { a, b } = await twoInstances(adapt);
    await listening;
    const [first] = await jwksKids(b.app);
    const { activated: { RS256: kid } } = await rotateSigningKey(a.db, a.keys, 2048, clock.now);
    expect(await jwksKids(b.app)).toEqual([first]); // unheard, and the clock stands still
    await sql`select pg_terminate_backend(${listens[0]!})`.execute(a.db);
    await until(async () => (await jwksKids(b.app)).includes(kid));
    expect(listens).toHaveLength(2);
    expect(listens[1]).not.toBe(listens[0]);
  });
});
