/**
 * The peer: panva's oidc-provider in a child process of its own, configured as
 * close to our server as it allows — RS256 (2048-bit key), PKCE S256 required,
 * two confidential clients (client_secret_post/basic, authorization_code +
 * refresh_token; the second with id_token_signed_response_alg ES256), scopes
 * openid profile email, the same lifetimes, refresh tokens for the client and
 * rotation on every use, static account claims.
 *
 * Two ways to run it (PEER_STORE):
 * - `memory`: an unbounded Map adapter (the built-in memory adapter is an LRU
 *   of 1,000 entries that evicts codes under load), opaque access tokens.
 * - `redis` ("as deployed"): the adapter below over ioredis, after
 *   oidc-provider's example Redis adapter, keys under REDIS_PREFIX; and JWT
 *   access tokens for a resource server (resource indicators,
 *   `accessTokenFormat: 'jwt'`, signed with the client's algorithm), so that an
 *   exchange or a refresh signs twice as ours does.
 *
 * Codes are minted through its own models on an IPC request
 * { type: 'mint', id, clientId, count, codeChallenge, nonce } → { id, codes }:
 * a saved Grant and an AuthorizationCode per code, as its authorization
 * endpoint does.
 *
 * Env: PORT, CLIENT_ID, CLIENT_ID_ES256, CLIENT_SECRET, REDIRECT_URI,
 * PEER_STORE (memory | redis), REDIS_URL, REDIS_PREFIX, RESOURCE.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const clientId = process.env.CLIENT_ID;
const clientIdEs256 = process.env.CLIENT_ID_ES256;
const store = process.env.PEER_STORE ?? 'memory';
const resource = process.env.RESOURCE ?? 'urn:bench:api';
const clientSecret = process.env.CLIENT_SECRET;
const redirectUri = process.env.REDIRECT_URI;
const ACCOUNT = {
  sub: 'bench-user', email: 'bench-user@example.org', email_verified: true,
  name: 'Bench User', given_name: 'Bench', family_name: 'User', preferred_username: 'Bench', locale: 'de-DE',
};

/** Unbounded, Map-based: nothing is evicted while the bench runs. */
const stores = new Map();
const grantMembers = new Map();
const uids = new Map();
const userCodes = new Map();
class MapAdapter {
  constructor(model) {
    this.model = model;
    if (!stores.has(model)) stores.set(model, new Map());
    this.store = stores.get(model);
  }
  async upsert(id, payload) {
    this.store.set(id, payload);
    if (payload.grantId) {
      let members = grantMembers.get(payload.grantId);
      if (!members) grantMembers.set(payload.grantId, members = []);
      members.push([this.model, id]);
    }
    if (payload.uid) uids.set(payload.uid, id);
    if (payload.userCode) userCodes.set(payload.userCode, id);
  }
  async find(id) { return this.store.get(id); }
  async findByUid(uid) { return this.store.get(uids.get(uid)); }
  async findByUserCode(userCode) { return this.store.get(userCodes.get(userCode)); }
  async consume(id) {
    const payload = this.store.get(id);
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) { this.store.delete(id); }
  async revokeByGrantId(grantId) {
    for (const [model, id] of grantMembers.get(grantId) ?? []) stores.get(model)?.delete(id);
    grantMembers.delete(grantId);
  }
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };
const { privateKey: ecKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ecJwk = { ...ecKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' };

/**
 * Redis adapter after oidc-provider's example (example/adapters/redis.js):
 * consumable models as hashes (so `consume` sets one field), the others as
 * JSON strings, each with its expiry; a list per grant of its tokens' keys for
 * revokeByGrantId; uid and user-code indexes.
 */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
const redis = store === 'redis' ? new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { keyPrefix: process.env.REDIS_PREFIX ?? 'bench:' }) : undefined;
class RedisAdapter {
  constructor(name) { this.name = name; }
  key(id) { return `${this.name}:${id}`; }
  async upsert(id, payload, expiresIn) {
    const key = this.key(id);
    const multi = redis.multi();
    if (CONSUMABLE.has(this.name)) multi.hset(key, { payload: JSON.stringify(payload) });
    else multi.set(key, JSON.stringify(payload));
    if (expiresIn) multi.expire(key, expiresIn);
    if (GRANTABLE.has(this.name) && payload.grantId) {
      const grantKey = `grant:${payload.grantId}`;
      multi.rpush(grantKey, key);
      const ttl = await redis.ttl(grantKey);
      if (expiresIn > ttl) multi.expire(grantKey, expiresIn);
    }
    if (payload.userCode) {
      multi.set(`userCode:${payload.userCode}`, id);
      if (expiresIn) multi.expire(`userCode:${payload.userCode}`, expiresIn);
    }
    if (payload.uid) {
      multi.set(`uid:${payload.uid}`, id);
      if (expiresIn) multi.expire(`uid:${payload.uid}`, expiresIn);
    }
    await multi.exec();
  }
  async find(id) {
    const data = CONSUMABLE.has(this.name) ? await redis.hgetall(this.key(id)) : await redis.get(this.key(id));
    if (!data || (typeof data === 'object' && Object.keys(data).length === 0)) return undefined;
    if (typeof data === 'string') return JSON.parse(data);
    const { payload, ...rest } = data;
    return { ...rest, ...JSON.parse(payload), ...(rest.consumed ? { consumed: Number(rest.consumed) } : {}) };
  }
  async findByUid(uid) { const id = await redis.get(`uid:${uid}`); return id ? this.find(id) : undefined; }
  async findByUserCode(userCode) { const id = await redis.get(`userCode:${userCode}`); return id ? this.find(id) : undefined; }
  async destroy(id) { await redis.del(this.key(id)); }
  async revokeByGrantId(grantId) {
    const grantKey = `grant:${grantId}`;
    const tokens = await redis.lrange(grantKey, 0, -1); // unprefixed keys: ioredis prefixes each del
    const multi = redis.multi();
    for (const token of tokens) multi.del(token);
    multi.del(grantKey);
    await multi.exec();
  }
  async consume(id) { await redis.hset(this.key(id), 'consumed', Math.floor(Date.now() / 1000)); }
}

const provider = new Provider(issuer, {
  adapter: store === 'redis' ? RedisAdapter : MapAdapter,
  clients: [clientId, clientIdEs256].map((id) => ({
    client_id: id, client_secret: clientSecret,
    grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post',
    ...(id === clientIdEs256 ? { id_token_signed_response_alg: 'ES256' } : {}),
  })),
  jwks: { keys: [jwk, ecJwk] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  pkce: { required: () => true },
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  claims: {
    openid: ['sub'],
    profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'picture'],
    email: ['email', 'email_verified'],
  },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ ...ACCOUNT, sub }) }),
  ttl: {
    AccessToken: 3600, AuthorizationCode: 600, IdToken: 3600, RefreshToken: 30 * 24 * 3600,
    Grant: 30 * 24 * 3600, Session: 14 * 24 * 3600, Interaction: 3600,
  },
  // Like ours: a refresh token whenever the client holds the grant (no offline_access needed),
  // rotated on every use, and not tied to a browser session.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  expiresWithSession: async () => false,
  features: {
    devInteractions: { enabled: false },
    userinfo: { enabled: true },
    revocation: { enabled: true },
    // As deployed: access tokens are JWTs for the API (the resource server), signed like the ID token.
    resourceIndicators: {
      enabled: store === 'redis',
      defaultResource: async () => resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, _indicator, client) => ({
        scope: 'openid profile email', audience: resource, accessTokenTTL: 3600, accessTokenFormat: 'jwt',
        jwt: { sign: { alg: client.idTokenSignedResponseAlg ?? 'RS256' } },
      }),
    },
  },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider server_error: ${error?.stack ?? error}\n`));

async function mint({ clientId, count, codeChallenge, nonce }) {
  const client = await provider.Client.find(clientId);
  const authTime = Math.floor(Date.now() / 1000);
  const codes = [];
  for (let i = 0; i < count; i++) {
    const grant = new provider.Grant({ accountId: ACCOUNT.sub, clientId });
    grant.addOIDCScope('openid profile email');
    if (store === 'redis') grant.addResourceScope(resource, 'openid profile email');
    const grantId = await grant.save();
    const code = new provider.AuthorizationCode({
      accountId: ACCOUNT.sub, client, grantId, authTime, nonce, redirectUri,
      scope: 'openid profile email', codeChallenge, codeChallengeMethod: 'S256',
      ...(store === 'redis' ? { resource } : {}),
    });
    codes.push(await code.save());
  }
  return codes;
}

process.on('message', (message) => {
  if (message?.type !== 'mint') return;
  mint(message).then(
    (codes) => process.send({ id: message.id, codes }),
    (error) => process.send({ id: message.id, error: String(error?.stack ?? error) }),
  );
});
process.on('SIGTERM', () => {
  if (redis) redis.quit().finally(() => process.exit(0));
  else process.exit(0);
});
provider.listen(port, '127.0.0.1');
