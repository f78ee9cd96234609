/**
 * The peer: panva's oidc-provider in a child process of its own, configured as
 * close to our server as it allows — RS256 (2048-bit key), PKCE S256 required,
 * one confidential client (client_secret_post/basic, authorization_code +
 * refresh_token), scopes openid profile email, the same lifetimes, refresh
 * tokens for the client and rotation on every use, static account claims, and
 * an unbounded Map adapter (the built-in memory adapter is an LRU of 1,000
 * entries that evicts codes under load).
 *
 * Codes are minted through its own models on an IPC request
 * { type: 'mint', id, count, codeChallenge, nonce } → { id, codes }: a saved
 * Grant and an AuthorizationCode per code, as its authorization endpoint does.
 *
 * Env: PORT, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const clientId = process.env.CLIENT_ID;
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

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  clients: [{
    client_id: clientId, client_secret: clientSecret,
    grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post',
  }],
  jwks: { keys: [jwk] },
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
  },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider server_error: ${error?.stack ?? error}\n`));

async function mint({ count, codeChallenge, nonce }) {
  const client = await provider.Client.find(clientId);
  const authTime = Math.floor(Date.now() / 1000);
  const codes = [];
  for (let i = 0; i < count; i++) {
    const grant = new provider.Grant({ accountId: ACCOUNT.sub, clientId });
    grant.addOIDCScope('openid profile email');
    const grantId = await grant.save();
    const code = new provider.AuthorizationCode({
      accountId: ACCOUNT.sub, client, grantId, authTime, nonce, redirectUri,
      scope: 'openid profile email', codeChallenge, codeChallengeMethod: 'S256',
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
process.on('SIGTERM', () => process.exit(0));
provider.listen(port, '127.0.0.1');
