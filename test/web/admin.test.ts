/**
 * The OAuth client admin screen /admin/oauthclients (SPEC §5.7) through
 * app.inject() on a real database: access, and create with every field, a
 * message per field, CSRF and the one-time secret.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isClientSecretValid } from '../../src/oauth/clients/client-secret.ts';
import { createClient, findClient } from '../../src/oauth/clients/clients.service.ts';
import type { TestSession } from '../helpers/session.ts';
import { secretIn, useAdminScreen, type Form } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, post, get, fullForm, secretDigest } = screen;
let orga: TestSession;
let ambassador: TestSession;
let berlin: number;
let cologne: number;
beforeAll(() => { ({ orga, ambassador, berlin, cologne } = screen); });

describe('access', () => {
  it('sends logged-out visitors to the login page and back', async () => {
    const list = await get('/admin/oauthclients', null);
    expect(list.statusCode).toBe(303);
    expect(list.headers.location).toBe('/login?return_to=%2Fadmin%2Foauthclients');
    const edit = await get('/admin/oauthclients/some-app/edit', null);
    expect(edit.headers.location).toBe('/login?return_to=%2Fadmin%2Foauthclients%2Fsome-app%2Fedit');
    const create = await post('/admin/oauthclients', null, fullForm('logged-out', 'x'));
    expect(create.statusCode).toBe(303);
    expect(create.headers.location).toBe('/login?return_to=%2Fadmin%2Foauthclients');
    expect(await findClient(t.db, 'logged-out')).toBeUndefined();
  });

  it('answers 403 to members who are not orga, and changes nothing', async () => {
    await createClient(t.db, t.keys, { clientId: 'kept', name: 'Kept', confidential: true, redirectUris: ['https://kept.example/cb'], scopes: [], grantTypes: [], requiredRegions: [] });
    for (const url of ['/admin/oauthclients', '/admin/oauthclients/new', '/admin/oauthclients/kept/edit', '/admin/oauthclients/kept/delete', '/admin/oauthclients/kept/secret']) {
      const page = await get(url, ambassador);
      expect(page.statusCode, url).toBe(403);
      expect(page.body).toContain('Du hast keine Berechtigung für diese Seite.');
    }
    const digest = await secretDigest('kept');
    const create = await post('/admin/oauthclients', ambassador, fullForm('by-ambassador', ambassador.csrfToken));
    expect(create.statusCode).toBe(403);
    expect(await findClient(t.db, 'by-ambassador')).toBeUndefined();
    expect((await post('/admin/oauthclients/kept/delete', ambassador, [['csrf_token', ambassador.csrfToken]])).statusCode).toBe(403);
    expect((await post('/admin/oauthclients/kept/secret', ambassador, [['csrf_token', ambassador.csrfToken]])).statusCode).toBe(403);
    expect((await post('/admin/oauthclients/kept', ambassador, fullForm('kept', ambassador.csrfToken))).statusCode).toBe(403);
    const kept = await findClient(t.db, 'kept');
    expect(kept?.name).toBe('Kept');
    expect(await secretDigest('kept')).toEqual(digest);
  });

  it('shows orga members the list with the create link, in German or English', async () => {
    const list = await get('/admin/oauthclients', orga);
    expect(list.statusCode).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.body).toContain('<a class="button" href="/admin/oauthclients/new">+ Neuen Client erstellen</a>');
    expect(list.body).toContain('<code>kept</code>');
    const english = await get('/admin/oauthclients', orga, { 'accept-language': 'en' });
    expect(english.body).toContain('+ Create new client');
  });
});

describe('create', () => {
  it('offers every field, labelled, with the existing regions', async () => {
    const page = await get('/admin/oauthclients/new', orga);
    expect(page.statusCode).toBe(200);
    for (const [id, label] of [['clientId', 'Client-ID'], ['name', 'Name'], ['redirectUris', 'Redirect-URIs'], ['requiredRegions', 'Erforderliche Bezirke']]) {
      expect(page.body).toContain(`<label for="${id}">${label}</label>`);
    }
    expect(page.body).toContain('<textarea id="redirectUris" name="redirect_uris"');
    expect(page.body).toMatch(/<input type="checkbox" id="confidential" name="confidential" value="1" checked/);
    for (const scope of ['profile', 'email', 'regions']) expect(page.body).toContain(`<input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"`);
    expect(page.body).toContain('<input type="checkbox" id="grant-refresh_token" name="grant_types" value="refresh_token"');
    expect(page.body).toContain('<select id="requiredRegions" name="required_regions" multiple');
    expect(page.body).toContain(`<option value="${berlin}">Deutschland › Berlin</option>`);
    expect(page.body).toContain(`<option value="${cologne}">Deutschland › Köln</option>`);
    expect(page.body).toContain(`<input type="hidden" name="csrf_token" value="${orga.csrfToken}">`);
  });

  it('creates a confidential client with every field and shows its secret once', async () => {
    const response = await post('/admin/oauthclients', orga, fullForm('karte', orga.csrfToken));
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const secret = secretIn(response.body);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(response.body).toContain('Kopiere das Secret jetzt. Es wird nur dieses eine Mal angezeigt');

    const client = await findClient(t.db, 'karte');
    expect(client).toMatchObject({
      clientId: 'karte', name: 'Foodsharing Karte', confidential: true,
      redirectUris: ['https://karte.example.org/callback', 'http://127.0.0.1:3000/cb'],
      scopes: ['openid', 'profile', 'email', 'regions'],
      grantTypes: ['authorization_code', 'refresh_token'],
      requiredRegions: [berlin, cologne].sort((a, b) => a - b),
    });
    const digest = await secretDigest('karte');
    expect(digest?.toString('utf8')).not.toContain(secret);
    expect(isClientSecretValid(t.keys, digest, secret ?? '')).toBe(true);

    for (const url of ['/admin/oauthclients', '/admin/oauthclients/karte/edit', '/admin/oauthclients/karte/secret']) {
      const later = await get(url, orga);
      expect(later.statusCode).toBe(200);
      expect(later.body).not.toContain(secret);
    }
    const list = await get('/admin/oauthclients', orga);
    expect(list.body).toContain('Deutschland › Berlin, Deutschland › Köln');
  });

  it('offers the device authorization grant as a checkbox, and stores it when ticked', async () => {
    const page = await get('/admin/oauthclients/new', orga);
    expect(page.body).toContain('<input type="checkbox" id="grant-urn:ietf:params:oauth:grant-type:device_code" name="grant_types" value="urn:ietf:params:oauth:grant-type:device_code"');
    expect(page.body).toContain('device_code (Geräte ohne Browser, RFC 8628)');
    const form: Form = [['csrf_token', orga.csrfToken], ['client_id', 'fridge-display'], ['name', 'Fairteiler-Anzeige'], ['redirect_uris', 'https://fridge.example/cb'],
      ['grant_types', 'urn:ietf:params:oauth:grant-type:device_code']];
    expect((await post('/admin/oauthclients', orga, form)).statusCode).toBe(303);
    expect(await findClient(t.db, 'fridge-display')).toMatchObject({ grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'] });
    const edit = await get('/admin/oauthclients/fridge-display/edit', orga);
    expect(edit.body).toMatch(/value="urn:ietf:params:oauth:grant-type:device_code" checked/);
  });

  it('creates a public client without a secret and redirects to the list', async () => {
    const form: Form = [['csrf_token', orga.csrfToken], ['client_id', 'spa.web'], ['name', 'Single Page'], ['redirect_uris', 'https://spa.example/cb']];
    const response = await post('/admin/oauthclients', orga, form);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/admin/oauthclients?created=spa.web');
    expect(secretIn(response.body)).toBeUndefined();
    expect(await findClient(t.db, 'spa.web')).toMatchObject({ confidential: false, scopes: ['openid'], grantTypes: ['authorization_code'], requiredRegions: [] });
    expect(await secretDigest('spa.web')).toBeNull();
    const list = await get(response.headers.location as string, orga);
    expect(list.body).toContain('Der Client „spa.web“ wurde erstellt.');
  });

  it('answers every bad field with its own message next to it, keeping the input', async () => {
    const form: Form = [['csrf_token', orga.csrfToken], ['client_id', 'has space'], ['name', '  '], ['confidential', '1'], ['redirect_uris', '']];
    const response = await post('/admin/oauthclients', orga, form);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Bitte korrigiere die markierten Felder.');
    expect(response.body).toContain('<p class="field-error" id="clientId-error">Die Client-ID darf nur Buchstaben, Ziffern');
    expect(response.body).toContain('<p class="field-error" id="name-error">Bitte gib einen Namen an.</p>');
    expect(response.body).toContain('<p class="field-error" id="redirectUris-error">Bitte gib mindestens eine Redirect-URI an.</p>');
    expect(response.body).toMatch(/id="clientId" name="client_id" value="has space"[^>]*aria-describedby="clientId-help clientId-error" aria-invalid="true"/);
    expect(response.body).toMatch(/id="name" name="name"[^>]*aria-describedby="name-help name-error" aria-invalid="true"/);
    expect(response.body).not.toContain('id="scopes-error"');
    expect(await findClient(t.db, 'has space')).toBeUndefined();
  });

  it('explains bad redirect URIs, a taken client id and forged scopes, grant types and regions', async () => {
    const uris = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', 'bad-uris'], ['name', 'Bad'],
      ['redirect_uris', 'http://app.example/cb\nhttps://ok.example/cb\nhttps://app.example/cb#frag']], { 'accept-language': 'en' });
    expect(uris.statusCode).toBe(400);
    expect(uris.body).toContain('<p class="field-error" id="redirectUris-error">Invalid: “http://app.example/cb”, “https://app.example/cb#frag”. Allowed are absolute URIs');
    expect(uris.body).toContain('http://app.example/cb\nhttps://ok.example/cb\nhttps://app.example/cb#frag</textarea>');

    const taken = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', 'karte'], ['name', 'Second'], ['redirect_uris', 'https://x.example/cb']]);
    expect(taken.statusCode).toBe(400);
    expect(taken.body).toContain('<p class="field-error" id="clientId-error">Diese Client-ID ist schon vergeben.</p>');
    expect((await findClient(t.db, 'karte'))?.name).toBe('Foodsharing Karte');

    const forged = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', 'forged'], ['name', 'Forged'], ['redirect_uris', 'https://x.example/cb'],
      ['scopes', 'admin'], ['grant_types', 'password'], ['required_regions', '999999']]);
    expect(forged.statusCode).toBe(400);
    expect(forged.body).toContain('<p class="field-error" id="scopes-error">Bitte wähle nur angebotene Scopes.</p>');
    expect(forged.body).toContain('<p class="field-error" id="grantTypes-error">Bitte wähle nur angebotene Grant-Types.</p>');
    expect(forged.body).toContain('<fieldset id="scopes" aria-describedby="scopes-error" aria-invalid="true" tabindex="-1">');

    const region = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', 'forged'], ['name', 'Forged'], ['redirect_uris', 'https://x.example/cb'],
      ['required_regions', '999999'], ['required_regions', 'abc']]);
    expect(region.statusCode).toBe(400);
    expect(region.body).toContain('<p class="field-error" id="requiredRegions-error">Mindestens einer der gewählten Bezirke existiert nicht (mehr).</p>');
    expect(await findClient(t.db, 'forged')).toBeUndefined();
  });

  it('refuses a forged POST without the CSRF token and creates nothing', async () => {
    const form = fullForm('forged-csrf', orga.csrfToken).filter(([k]) => k !== 'csrf_token');
    const missing = await post('/admin/oauthclients', orga, form);
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('Das Formular ist abgelaufen.');
    expect(secretIn(missing.body)).toBeUndefined();
    const wrong = await post('/admin/oauthclients', orga, [...form, ['csrf_token', ambassador.csrfToken]]);
    expect(wrong.statusCode).toBe(403);
    expect(await findClient(t.db, 'forged-csrf')).toBeUndefined();
  });
});
