/**
 * oidc-provider as an OAuth target: its child process, and codes minted over
 * IPC. Two forms: in memory, and as deployed (Redis, JWT access tokens); each
 * with an RS256 and an ES256 client.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { CheckFailed } from '../checks.ts';
import { freePort, startChild, type Child } from '../child-process.ts';
import { childEnv } from '../server-process.ts';
import { CODE_CHALLENGE, discover, NONCE, type OAuthTarget } from './oauth.ts';

const CLIENT_ID = 'bench-app';
const CLIENT_ID_ES256 = 'bench-app-es256';
const REDIRECT_URI = 'http://127.0.0.1:3000/callback';
const RESOURCE = 'urn:bench:api';

export type PeerStore = 'memory' | 'redis';

export const PEER_NOTES: Record<PeerStore, string> = {
  memory: 'in-memory peer = oidc-provider %VERSION% with an unbounded Map adapter, no database: opaque access tokens, so an exchange '
    + 'signs once (the ID token) and userinfo verifies no signature; its ID tokens carry no at_hash',
  redis: 'peer as deployed = oidc-provider %VERSION% with a Redis adapter (after its example adapter, ioredis, keys under a prefix '
    + 'of this run, deleted after) and JWT access tokens for a resource server (resource indicators, accessTokenFormat jwt, '
    + 'the client\'s algorithm): an exchange and a refresh sign twice, as ours do',
};
export const PEER_MINT_NOTE = 'peer codes are minted through its models (a saved Grant and AuthorizationCode each), not through its authorization endpoint';

export interface Peer {
  child: Child;
  /** The RS256 client, and the ES256 one. */
  target: OAuthTarget;
  es256: OAuthTarget;
  /** redis-server's pid when it runs on this machine (its CPU is metered beside the peer's). */
  redisPid: number | null;
  /** Stops the child and deletes this run's Redis keys. */
  stop(): Promise<void>;
}

/** redis-server's pid when Redis answers at `url` on this machine; null otherwise. */
async function redisServerPid(redis: Redis): Promise<number | null> {
  const info = await redis.info('server');
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  const host = redis.options.host ?? '127.0.0.1';
  return Number.isInteger(pid) && ['127.0.0.1', 'localhost', '::1'].includes(host) ? pid : null;
}

/** Opens Redis for the peer as deployed; undefined (and why) when it does not answer. */
export async function openRedis(url: string): Promise<{ redis: Redis } | { reason: string }> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return { redis };
  } catch (error) {
    redis.disconnect();
    return { reason: `Redis at ${url} does not answer (${error instanceof Error ? error.message : String(error)})` };
  }
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export async function startPeer(store: PeerStore, redis?: { client: Redis; url: string }): Promise<Peer> {
  const port = await freePort();
  const secret = randomBytes(32).toString('base64url');
  const prefix = `bench-${process.pid}-${port}:`;
  const child = await startChild({
    name: store === 'redis' ? 'oidc-provider (Redis)' : 'oidc-provider', port, readyPath: '/.well-known/openid-configuration', ipc: true,
    args: [path.join(import.meta.dirname, '..', 'peer', 'oidc-provider.mjs')],
    env: childEnv({
      PORT: String(port), CLIENT_ID, CLIENT_ID_ES256, CLIENT_SECRET: secret, REDIRECT_URI, RESOURCE,
      PEER_STORE: store, REDIS_URL: redis?.url, REDIS_PREFIX: prefix,
    }),
  });
  const endpoints = await discover(child.url);
  let nextId = 0;
  const mintCodes = (clientId: string) => (count: number) => new Promise<string[]>((resolve, reject) => {
    const id = ++nextId;
    const onMessage = (message: { id?: number; codes?: string[]; error?: string }) => {
      if (message.id !== id) return;
      child.process.off('message', onMessage);
      if (message.codes) resolve(message.codes);
      else reject(new CheckFailed(`oidc-provider could not mint codes: ${message.error}`));
    };
    child.process.on('message', onMessage);
    child.process.send({ type: 'mint', id, clientId, count, codeChallenge: CODE_CHALLENGE, nonce: NONCE });
  });
  const prefixName = store === 'redis' ? 'peer as deployed: ' : 'in-memory peer: ';
  const targetFor = (clientId: string, alg: 'RS256' | 'ES256'): OAuthTarget => ({
    prefix: prefixName, child,
    issuer: {
      issuer: endpoints.issuer, jwksUri: endpoints.jwksUri, clientId, alg,
      accessTokenIsJwt: store === 'redis', requireAtHash: false, ...(store === 'redis' ? { accessTokenAudience: RESOURCE } : {}),
    },
    clientSecret: secret, redirectUri: REDIRECT_URI,
    tokenPath: endpoints.tokenPath, userinfoPath: endpoints.userinfoPath,
    discoveryPath: '/.well-known/openid-configuration', jwksPath: new URL(endpoints.jwksUri).pathname,
    email: 'bench-user@example.org',
    mintCodes: mintCodes(clientId),
  });
  return {
    child,
    target: targetFor(CLIENT_ID, 'RS256'),
    es256: targetFor(CLIENT_ID_ES256, 'ES256'),
    redisPid: redis ? await redisServerPid(redis.client) : null,
    stop: async () => {
      await child.stop();
      if (redis) await deleteKeys(redis.client, prefix);
    },
  };
}
