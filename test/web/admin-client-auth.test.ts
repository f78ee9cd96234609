/**
 * The client authentication settings and DPoP on the admin screen:
 * token_endpoint_auth_method, jwks (a JSON textarea) and jwks_uri, judged by
 * the rules the CLI uses, each refusal beside its field with nothing stored;
 * dpop_bound_access_tokens as a checkbox. German and English.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';

const t = useTestApp();
const ecKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = { ...ecKey().publicKey.export({ format: 'jwk' }), kid: 'k1' };

function post(url: string, session: LoggedIn, clientId: string, extra: [string, string][], headers: Record<string, string> = {}) {
  const form: [string, string][] = [
    ['csrf_token', session.csrfToken], ['client_id', clientId], ['name', 'Keyed App'], ['redirect_uris', 'https://keyed.example.org/cb'], ...extra,
  ];
  return t.app.inject({
    method: 'POST', url, payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie, ...headers },
  });
}

/** The field error under `field`, and whether the field is marked invalid. */
function fieldError(html: string, field: string): { message: string | undefined; invalid: boolean } {
  const message = new RegExp(`<p class="field-error" id="${field}-error">([^<]*)</p>`).exec(html)?.[1];
  const invalid = new RegExp(`id="${field}"[^>]*aria-invalid="true"`).test(html);
  return { message: message?.replaceAll('&quot;', '"').replaceAll('&#39;', '\''), invalid };
}

describe('client authentication on the admin screen', () => {
  it('offers the method, the keys and the DPoP checkbox, labelled, in German and English', async () => {
    const orga = await t.as('orga');
    const page = await t.call('GET', '/admin/oauthclients/new', orga);
    expect(page.body).toContain('<label for="tokenEndpointAuthMethod">Client-Authentifizierung</label>');
    expect(page.body).toMatch(/<option value="" selected>nach Typ: Secret/);
    for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']) expect(page.body).toContain(`<option value="${method}">${method} (`);
    expect(page.body).toContain('<textarea id="jwks" name="jwks" rows="4" spellcheck="false" aria-describedby="jwks-help"></textarea>');
    expect(page.body).toContain('<input type="url" id="jwksUri" name="jwks_uri" value="" maxlength="2000" spellcheck="false" aria-describedby="jwksUri-help">');
    expect(page.body).toContain('<label class="inline" for="dpopBoundAccessTokens">Nur DPoP-gebundene Tokens ausgeben (dpop_bound_access_tokens)</label>');
    const english = await t.call('GET', '/admin/oauthclients/new', orga, undefined, { 'accept-language': 'en' });
    expect(english.body).toContain('<label for="jwks">Public keys (JWK Set)</label>');
    expect(english.body).toContain('<label class="inline" for="dpopBoundAccessTokens">Issue DPoP-bound tokens only (dpop_bound_access_tokens)</label>');
  });

  it('creates a private_key_jwt client with inline keys and DPoP required; the edit form shows them', async () => {
    const orga = await t.as('orga');
    const created = await post('/admin/oauthclients', orga, 'keyed', [
      ['confidential', '1'], ['token_endpoint_auth_method', 'private_key_jwt'], ['jwks', JSON.stringify({ keys: [publicJwk] })], ['dpop_bound_access_tokens', '1'],
    ]);
    expect(created.statusCode).toBe(303); // no secret to show
    expect(await findClient(t.db, 'keyed')).toMatchObject({
      confidential: true, tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] }, jwksUri: null, dpopBoundAccessTokens: true,
    });
    const edit = await t.call('GET', '/admin/oauthclients/keyed/edit', orga);
    expect(edit.body).toContain('<option value="private_key_jwt" selected>');
    expect(edit.body).toContain('&quot;kid&quot;: &quot;k1&quot;');
    expect(edit.body).toMatch(/name="dpop_bound_access_tokens" value="1" aria-describedby="dpopBoundAccessTokens-help" checked>/);
  });

  it('switches a client to keys from a jwks_uri, and back to a secret (shown once)', async () => {
    const orga = await t.as('orga');
    await post('/admin/oauthclients', orga, 'switching', [['confidential', '1'], ['token_endpoint_auth_method', 'client_secret_post']]);
    expect(await findClient(t.db, 'switching')).toMatchObject({ tokenEndpointAuthMethod: 'client_secret_post' });
    const keyed = await post('/admin/oauthclients/switching', orga, 'switching', [
      ['confidential', '1'], ['token_endpoint_auth_method', 'private_key_jwt'], ['jwks_uri', 'https://keyed.example.org/jwks.json'],
    ]);
    expect(keyed.statusCode).toBe(303);
    expect(await findClient(t.db, 'switching')).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: null, jwksUri: 'https://keyed.example.org/jwks.json' });
    const secret = await post('/admin/oauthclients/switching', orga, 'switching', [['confidential', '1'], ['token_endpoint_auth_method', '']]);
    expect(secret.statusCode).toBe(200);
    expect(secret.body).toContain('id="client-secret"');
    expect(await findClient(t.db, 'switching')).toMatchObject({ tokenEndpointAuthMethod: 'client_secret_basic', jwksUri: null });
  });

  it.each([
    ['JSON that does not parse', [['token_endpoint_auth_method', 'private_key_jwt'], ['jwks', '{"keys": [']], 'jwks',
      /^Das ist kein gültiges JSON: /],
    ['a private key', [['token_endpoint_auth_method', 'private_key_jwt'], ['jwks', JSON.stringify({ keys: [ecKey().privateKey.export({ format: 'jwk' })] })]], 'jwks',
      /^Ungültig: key 1 holds private key material: register the public key only$/],
    ['no keys set', [['token_endpoint_auth_method', 'private_key_jwt'], ['jwks', '{"keys": []}']], 'jwks',
      /^Ungültig: must be a JWK Set: \{"keys": \[\.\.\.\]\} with 1 to 20 public keys$/],
    ['both keys and a URL', [['token_endpoint_auth_method', 'private_key_jwt'], ['jwks', JSON.stringify({ keys: [publicJwk] })], ['jwks_uri', 'https://keyed.example.org/jwks']], 'jwks',
      /^Ungültig: private_key_jwt needs the client's public keys: either jwks or jwks_uri, not both$/],
    ['neither keys nor a URL', [['token_endpoint_auth_method', 'private_key_jwt']], 'jwks', /^Ungültig: private_key_jwt needs/],
    ['a jwks_uri on plain http elsewhere', [['token_endpoint_auth_method', 'private_key_jwt'], ['jwks_uri', 'http://keyed.example.org/jwks']], 'jwksUri', /^Ungültig: /],
    ['none for a confidential client', [['token_endpoint_auth_method', 'none']], 'tokenEndpointAuthMethod', /^„none“ ist nur für öffentliche Clients/],
    ['a method that does not exist', [['token_endpoint_auth_method', 'tls_client_auth']], 'tokenEndpointAuthMethod', /^Bitte wähle eine der angebotenen Methoden\.$/],
  ])('%s: 400, the message beside its field, nothing stored', async (_name, extra, field, message) => {
    const orga = await t.as('orga');
    const clientId = `refused-${Math.random().toString(36).slice(2, 8)}`;
    const response = await post('/admin/oauthclients', orga, clientId, [['confidential', '1'], ...extra as [string, string][]]);
    expect(response.statusCode).toBe(400);
    const error = fieldError(response.body, field);
    expect(error.message).toMatch(message);
    expect(error.invalid).toBe(true);
    expect(await findClient(t.db, clientId)).toBeUndefined();
  });

  it('a public client choosing a secret method is told to choose none (in English too)', async () => {
    const orga = await t.as('orga');
    const response = await post('/admin/oauthclients', orga, 'public-secret', [['token_endpoint_auth_method', 'client_secret_basic']], { 'accept-language': 'en' });
    expect(response.statusCode).toBe(400);
    expect(fieldError(response.body, 'tokenEndpointAuthMethod').message).toBe('A public client authenticates with "none": choose "none" or check "Confidential client".');
    expect(await findClient(t.db, 'public-secret')).toBeUndefined();
  });
});
