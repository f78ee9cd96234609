/**
 * A private_key_jwt client edited on the admin screen (whose form has no key
 * fields) keeps its method and its keys and gets no secret; made public
 * there, it becomes public.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createClient, findClient } from '../../src/oauth/clients/clients.service.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';

const t = useTestApp();
const publicJwk = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k1' };

function save(session: LoggedIn, clientId: string, form: [string, string][]) {
  return t.app.inject({
    method: 'POST', url: `/admin/oauthclients/${clientId}`, payload: new URLSearchParams([['csrf_token', session.csrfToken], ['client_id', clientId], ...form]).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
  });
}

const secretDigest = async (clientId: string) => (await t.db.selectFrom('oauth_clients').select('secret_digest').where('client_id', '=', clientId).executeTakeFirstOrThrow()).secret_digest;

describe('a private_key_jwt client on the admin screen', () => {
  it('keeps its method and keys when saved, and gets no secret', async () => {
    const orga = await t.as('orga');
    await createClient(t.db, t.keys, {
      clientId: 'keyed', name: 'Keyed', confidential: true, redirectUris: ['https://keyed.example/cb'], scopes: ['openid'], grantTypes: ['authorization_code'], requiredRegions: [],
      tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] },
    });
    const saved = await save(orga, 'keyed', [['name', 'Keyed, renamed'], ['confidential', '1'], ['redirect_uris', 'https://keyed.example/cb']]);
    expect(saved.statusCode).toBe(303);
    expect(await findClient(t.db, 'keyed')).toMatchObject({ name: 'Keyed, renamed', tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] }, jwksUri: null });
    expect(await secretDigest('keyed')).toBeNull();
  });

  it('becomes public when saved as public', async () => {
    const orga = await t.as('orga');
    await createClient(t.db, t.keys, {
      clientId: 'keyed-2', name: 'Keyed 2', confidential: true, redirectUris: ['https://keyed.example/cb'], scopes: ['openid'], grantTypes: ['authorization_code'], requiredRegions: [],
      tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] },
    });
    expect((await save(orga, 'keyed-2', [['name', 'Keyed 2'], ['redirect_uris', 'https://keyed.example/cb']])).statusCode).toBe(303);
    expect(await findClient(t.db, 'keyed-2')).toMatchObject({ confidential: false, tokenEndpointAuthMethod: 'none', jwks: null });
  });
});
