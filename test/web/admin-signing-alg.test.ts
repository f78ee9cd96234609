/**
 * The signing algorithm of a client on the admin screen (`id_token_signed_response_alg`,
 * docs/oauth.md "Signing algorithms"): a labelled select in German and English,
 * stored on create and edit, a message beside it for a value not offered (and nothing written).
 */
import { describe, expect, it } from 'vitest';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';

const t = useTestApp();

function post(url: string, session: LoggedIn, form: [string, string][]) {
  return t.app.inject({
    method: 'POST', url, payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
  });
}

const form = (clientId: string, csrf: string, alg: string): [string, string][] => [
  ['csrf_token', csrf], ['client_id', clientId], ['name', 'Wiki'], ['confidential', '1'], ['redirect_uris', 'https://wiki.example.org/cb'],
  ['id_token_signed_response_alg', alg],
];

describe('the signing algorithm on the admin screen', () => {
  it('offers RS256 (preselected), ES256 and EdDSA, labelled in German and English', async () => {
    const orga = await t.as('orga');
    const page = await t.call('GET', '/admin/oauthclients/new', orga);
    expect(page.body).toContain('<label for="idTokenSignedResponseAlg">Signaturalgorithmus</label>');
    expect(page.body).toContain('<select id="idTokenSignedResponseAlg" name="id_token_signed_response_alg" aria-describedby="idTokenSignedResponseAlg-help">');
    expect(page.body).toContain('<option value="RS256" selected>RS256 (RSA, Standard)</option>');
    expect(page.body).toContain('<option value="ES256">ES256 (ECDSA mit P-256)</option>');
    expect(page.body).toContain('<option value="EdDSA">EdDSA (Ed25519)</option>');
    const english = await t.call('GET', '/admin/oauthclients/new', orga, undefined, { 'accept-language': 'en' });
    expect(english.body).toContain('<label for="idTokenSignedResponseAlg">Signing algorithm</label>');
    expect(english.body).toContain('<option value="RS256" selected>RS256 (RSA, default)</option>');
  });

  it('stores the choice on create, shows it on edit, changes it on save', async () => {
    const orga = await t.as('orga');
    expect((await post('/admin/oauthclients', orga, form('wiki', orga.csrfToken, 'EdDSA'))).statusCode).toBe(200);
    expect(await findClient(t.db, 'wiki')).toMatchObject({ idTokenSignedResponseAlg: 'EdDSA' });
    const edit = await t.call('GET', '/admin/oauthclients/wiki/edit', orga);
    expect(edit.body).toContain('<option value="EdDSA" selected>EdDSA (Ed25519)</option>');
    expect((await post('/admin/oauthclients/wiki', orga, form('wiki', orga.csrfToken, 'ES256'))).statusCode).toBe(303);
    expect(await findClient(t.db, 'wiki')).toMatchObject({ idTokenSignedResponseAlg: 'ES256' });
  });

  it('refuses a value it does not offer, beside the select, and stores nothing', async () => {
    const orga = await t.as('orga');
    const refused = await post('/admin/oauthclients', orga, form('bad-alg', orga.csrfToken, 'HS256'));
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<p class="field-error" id="idTokenSignedResponseAlg-error">Bitte wähle einen der angebotenen Algorithmen.</p>');
    expect(refused.body).toContain('aria-describedby="idTokenSignedResponseAlg-help idTokenSignedResponseAlg-error" aria-invalid="true"');
    expect(await findClient(t.db, 'bad-alg')).toBeUndefined();
  });
});
