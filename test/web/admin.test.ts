/**
 * The OAuth client admin screen /admin/oauthclients (SPEC §5.7) through
 * app.inject() on a real database: access, create with every field, a message
 * per field, CSRF, the one-time secret, edit, regenerate, delete.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isClientSecretValid } from '../../src/oauth/clients/client-secret.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { createClient, findClient } from '../../src/oauth/clients/clients.service.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
let orga: TestSession;
let ambassador: TestSession;
let berlin: number;
let cologne: number;
let orgaId: number;

beforeAll(async () => {
  const germany = await makeRegion(t.db, { name: 'Deutschland', type: 'country' });
  berlin = await makeRegion(t.db, { name: 'Berlin', parentId: germany });
  cologne = await makeRegion(t.db, { name: 'Köln', parentId: germany });
  const orgaUser = await makeUser(t.db, { role: 'orga' });
  orgaId = orgaUser.id;
  orga = await logInAs(t.app, orgaUser);
  ambassador = await logInAs(t.app, await makeUser(t.db, { role: 'ambassador', regionIds: [berlin], ambassadorOf: [berlin] }));
});

type Form = [string, string][];

function post(url: string, session: TestSession | null, form: Form, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url, payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(session ? { cookie: session.cookie } : {}), ...headers },
  });
}

function get(url: string, session: TestSession | null, headers: Record<string, string> = {}) {
  return t.app.inject({ url, headers: { ...(session ? { cookie: session.cookie } : {}), ...headers } });
}

function secretIn(html: string): string | undefined {
  return /id="client-secret" class="secret" value="([^"]+)"/.exec(html)?.[1];
}

function fullForm(clientId: string, csrf: string): Form {
  return [
    ['csrf_token', csrf], ['client_id', clientId], ['name', 'Foodsharing Karte'], ['confidential', '1'],
    ['redirect_uris', 'https://karte.example.org/callback\r\nhttp://127.0.0.1:3000/cb\r\n'],
    ['scopes', 'profile'], ['scopes', 'email'], ['scopes', 'regions'],
    ['grant_types', 'refresh_token'],
    ['required_regions', String(berlin)], ['required_regions', String(cologne)],
  ];
}

async function secretDigest(clientId: string) {
  return (await findClientRow(t.db, clientId))?.secret_digest ?? null;
}

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
    expect(forged.body).toContain('<fieldset id="scopes" aria-describedby="scopes-error">');

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

describe('edit', () => {
  it('shows the stored values and saves every changed field', async () => {
    const page = await get('/admin/oauthclients/karte/edit', orga);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('https://karte.example.org/callback\nhttp://127.0.0.1:3000/cb</textarea>');
    expect(page.body).toContain(`<option value="${berlin}" selected>`);
    expect(page.body).toMatch(/id="scope-email" name="scopes" value="email" checked/);
    expect(page.body).toContain('<form method="post" action="/admin/oauthclients/karte" novalidate>');
    expect(page.body).toContain('<a href="/admin/oauthclients/karte/secret">Neues Secret erzeugen</a>');
    expect(page.body).toContain('<a href="/admin/oauthclients/karte/delete">Löschen</a>');
    expect(page.body).toContain('<input type="text" id="clientId" value="karte" readonly');

    const digest = await secretDigest('karte');
    const response = await post('/admin/oauthclients/karte', orga, [['csrf_token', orga.csrfToken], ['name', 'Karte 2'], ['confidential', '1'],
      ['redirect_uris', 'https://karte.example.org/v2/cb'], ['scopes', 'email'], ['required_regions', String(cologne)]]);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/admin/oauthclients?updated=karte');
    expect(await findClient(t.db, 'karte')).toMatchObject({
      name: 'Karte 2', confidential: true, redirectUris: ['https://karte.example.org/v2/cb'],
      scopes: ['openid', 'email'], grantTypes: ['authorization_code'], requiredRegions: [cologne],
    });
    expect(await secretDigest('karte')).toEqual(digest);
  });

  it('validates per field and refuses a forged POST', async () => {
    const bad = await post('/admin/oauthclients/karte', orga, [['csrf_token', orga.csrfToken], ['name', ''], ['confidential', '1'], ['redirect_uris', 'ftp://x/cb']]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="name-error"');
    expect(bad.body).toContain('id="redirectUris-error">Ungültig: “ftp://x/cb”');
    // A pasted name with a tab: the message says what is wrong with it, not that it is missing.
    const control = await post('/admin/oauthclients/karte', orga, [['csrf_token', orga.csrfToken], ['name', 'Karte\t3'], ['confidential', '1'], ['redirect_uris', 'https://karte.example.org/v2/cb']]);
    expect(control.statusCode).toBe(400);
    expect(control.body).toContain('<p class="field-error" id="name-error">Der Name darf keine Steuerzeichen (etwa Tabulatoren oder Zeilenumbrüche) enthalten.</p>');
    expect(control.body).not.toContain('id="redirectUris-error"');
    const forged = await post('/admin/oauthclients/karte', orga, [['name', 'Hijacked'], ['confidential', '1'], ['redirect_uris', 'https://evil.example/cb']]);
    expect(forged.statusCode).toBe(403);
    expect(await findClient(t.db, 'karte')).toMatchObject({ name: 'Karte 2', redirectUris: ['https://karte.example.org/v2/cb'] });
  });

  it('gives a public client turned confidential its first secret, once', async () => {
    const response = await post('/admin/oauthclients/spa.web', orga, [['csrf_token', orga.csrfToken], ['name', 'Now a server'], ['confidential', '1'], ['redirect_uris', 'https://spa.example/cb']]);
    expect(response.statusCode).toBe(200);
    const secret = secretIn(response.body);
    expect(isClientSecretValid(t.keys, await secretDigest('spa.web'), secret ?? '')).toBe(true);
  });

  it('answers 404 for an unknown client and 400 for an impossible id', async () => {
    expect((await get('/admin/oauthclients/nope/edit', orga)).statusCode).toBe(404);
    expect((await post('/admin/oauthclients/nope', orga, fullForm('nope', orga.csrfToken))).statusCode).toBe(404);
    expect((await get('/admin/oauthclients/bad%20id/edit', orga)).statusCode).toBe(400);
  });
});

describe('regenerate secret', () => {
  it('asks first, then replaces the secret: the old one stops verifying, the new one is shown once', async () => {
    const created = await post('/admin/oauthclients', orga, fullForm('rotating', orga.csrfToken));
    const oldSecret = secretIn(created.body) ?? '';
    const confirm = await get('/admin/oauthclients/rotating/secret', orga);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<form method="post" action="/admin/oauthclients/rotating/secret">');

    const forged = await post('/admin/oauthclients/rotating/secret', orga, []);
    expect(forged.statusCode).toBe(403);
    expect(isClientSecretValid(t.keys, await secretDigest('rotating'), oldSecret)).toBe(true);

    const response = await post('/admin/oauthclients/rotating/secret', orga, [['csrf_token', orga.csrfToken]]);
    expect(response.statusCode).toBe(200);
    const newSecret = secretIn(response.body) ?? '';
    expect(newSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newSecret).not.toBe(oldSecret);
    const digest = await secretDigest('rotating');
    expect(isClientSecretValid(t.keys, digest, oldSecret)).toBe(false);
    expect(isClientSecretValid(t.keys, digest, newSecret)).toBe(true);
    expect((await get('/admin/oauthclients', orga)).body).not.toContain(newSecret);
  });

  it('has no secret to regenerate for a public client', async () => {
    await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', 'public-one'], ['name', 'Public'], ['redirect_uris', 'https://p.example/cb']]);
    expect((await get('/admin/oauthclients/public-one/secret', orga)).statusCode).toBe(404);
    expect((await post('/admin/oauthclients/public-one/secret', orga, [['csrf_token', orga.csrfToken]])).statusCode).toBe(404);
    expect(await secretDigest('public-one')).toBeNull();
  });
});

describe('delete', () => {
  it('asks first, refuses a forged POST, then deletes the client with its consents', async () => {
    await post('/admin/oauthclients', orga, fullForm('doomed', orga.csrfToken));
    const row = await findClientRow(t.db, 'doomed');
    await rememberConsent(t.db, orgaId, row?.id ?? 0, ['openid'], new Date());

    const confirm = await get('/admin/oauthclients/doomed/delete', orga, { 'accept-language': 'en' });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<h1>Delete client &quot;Foodsharing Karte&quot;?</h1>');
    expect(confirm.body).toContain('<button type="submit" class="danger">Yes, delete it</button>');

    const forged = await post('/admin/oauthclients/doomed/delete', orga, [['csrf_token', 'wrong']]);
    expect(forged.statusCode).toBe(403);
    expect(await findClient(t.db, 'doomed')).toBeDefined();

    const response = await post('/admin/oauthclients/doomed/delete', orga, [['csrf_token', orga.csrfToken]]);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/admin/oauthclients?deleted=doomed');
    expect(await findClient(t.db, 'doomed')).toBeUndefined();
    const consents = await t.db.selectFrom('oauth_consents').select('user_id').where('client_id', '=', row?.id ?? 0).execute();
    expect(consents).toEqual([]);
    expect((await get('/admin/oauthclients?deleted=doomed', orga)).body).toContain('Der Client „doomed“ wurde gelöscht.');
    expect((await post('/admin/oauthclients/doomed/delete', orga, [['csrf_token', orga.csrfToken]])).statusCode).toBe(404);
  });
});

describe('what the admin actions do to tokens', () => {
  /** A confidential client made through the screen, with refresh tokens, and a first set of tokens for the orga member. */
  async function clientWithTokens(clientId: string) {
    const created = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', clientId], ['name', clientId], ['confidential', '1'],
      ['redirect_uris', CALLBACK], ['scopes', 'profile'], ['grant_types', 'refresh_token']]);
    const secret = secretIn(created.body) ?? '';
    const code = await obtainCode(t, { clientId, cookie: orga.cookie, scope: 'openid profile' });
    const tokens = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: clientId, client_secret: secret, code_verifier: TEST_VERIFIER });
    expect(tokens.statusCode).toBe(200);
    const body = tokens.json() as { access_token: string; refresh_token: string };
    return { secret, accessToken: body.access_token, refreshToken: body.refresh_token };
  }

  const userinfo = (accessToken: string) => t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${accessToken}` } });

  it('regenerating the secret: the token endpoint refuses the old one and accepts the new one', async () => {
    const { secret, refreshToken } = await clientWithTokens('regen-tokens');
    const regenerated = await post('/admin/oauthclients/regen-tokens/secret', orga, [['csrf_token', orga.csrfToken]]);
    const newSecret = secretIn(regenerated.body) ?? '';
    const old = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'regen-tokens', client_secret: secret });
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ error: 'invalid_client' });
    const fresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'regen-tokens', client_secret: newSecret });
    expect(fresh.statusCode).toBe(200);
  });

  it('deleting the client ends its access and refresh tokens', async () => {
    const { secret, accessToken, refreshToken } = await clientWithTokens('delete-tokens');
    expect((await userinfo(accessToken)).statusCode).toBe(200);
    const grantCount = async () => (await t.db.selectFrom('oauth_grants').select('id').where('user_id', '=', orgaId).execute()).length;
    const before = await grantCount();
    const deleted = await post('/admin/oauthclients/delete-tokens/delete', orga, [['csrf_token', orga.csrfToken]]);
    expect(deleted.statusCode).toBe(303);
    const info = await userinfo(accessToken);
    expect(info.statusCode).toBe(401);
    expect(info.headers['www-authenticate']).toContain('error="invalid_token"');
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'delete-tokens', client_secret: secret });
    expect(refreshed.statusCode).toBe(401);
    expect(refreshed.json()).toMatchObject({ error: 'invalid_client' });
    expect(await grantCount()).toBe(before - 1);
  });
});
