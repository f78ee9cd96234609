/**
 * The client admin screen's edit, regenerate-secret and delete actions:
 * stored values shown, per-field validation, CSRF, the one-time secret.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isClientSecretValid } from '../../src/oauth/clients/client-secret.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import type { TestSession } from '../helpers/session.ts';
import { secretIn, useAdminScreen } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, post, get, fullForm, secretDigest } = screen;
let orga: TestSession;
let berlin: number;
let cologne: number;
let orgaId: number;
beforeAll(() => { ({ orga, berlin, cologne, orgaId } = screen); });
// The clients the actions work on, made through the screen as the create tests do.
beforeAll(async () => {
  expect((await post('/admin/oauthclients', orga, fullForm('karte', orga.csrfToken))).statusCode).toBe(200);
  const spa = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', 'spa.web'], ['name', 'Single Page'], ['redirect_uris', 'https://spa.example/cb']]);
  expect(spa.statusCode).toBe(303);
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
    // The same form again changes nothing, records nothing, and says so.
    const events = async () => {
      await t.app.securityEvents.settled(); // the audit log is written in batches
      return (await t.db.selectFrom('security_events').select('id').where('client_id', '=', 'karte').execute()).length;
    };
    const before = await events();
    const again = await post('/admin/oauthclients/karte', orga, [['csrf_token', orga.csrfToken], ['name', 'Karte 2'], ['confidential', '1'],
      ['redirect_uris', 'https://karte.example.org/v2/cb'], ['scopes', 'email'], ['required_regions', String(cologne)]]);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/admin/oauthclients?unchanged=karte');
    expect((await get(again.headers.location as string, orga)).body).toContain('Der Client „karte“ hatte diese Einstellungen schon: nichts geändert.');
    expect(await events()).toBe(before);
  });

  it('validates per field and refuses a forged POST', async () => {
    const bad = await post('/admin/oauthclients/karte', orga, [['csrf_token', orga.csrfToken], ['name', ''], ['confidential', '1'], ['redirect_uris', 'ftp://x/cb']]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="name-error"');
    expect(bad.body).toContain('id="redirectUris-error">Ungültig: „ftp://x/cb“');
    // A pasted name with a tab: the message says what is wrong with it, not that it is missing.
    const control = await post('/admin/oauthclients/karte', orga, [['csrf_token', orga.csrfToken], ['name', 'Karte\t3'], ['confidential', '1'], ['redirect_uris', 'https://karte.example.org/v2/cb']]);
    expect(control.statusCode).toBe(400);
    expect(control.body).toContain('<p class="field-error" id="name-error">Der Name darf keine Steuerzeichen (etwa Tabulatoren oder Zeilenumbrüche) und keine unsichtbaren Zeichen enthalten, die die Schreibrichtung umkehren (U+202A–U+202E, U+2066–U+2069).</p>');
    expect(control.body).not.toContain('id="redirectUris-error"');
    const forged = await post('/admin/oauthclients/karte', orga, [['name', 'Hijacked'], ['confidential', '1'], ['redirect_uris', 'https://evil.example/cb']]);
    expect(forged.statusCode).toBe(403);
    expect(await findClient(t.db, 'karte')).toMatchObject({ name: 'Karte 2', redirectUris: ['https://karte.example.org/v2/cb'] });
  });

  it('does not overwrite what someone else saved after the form was opened (409), and keeps the check through a correction', async () => {
    const versionIn = (html: string) => /<input type="hidden" name="version" value="(\d+)">/.exec(html)?.[1];
    const opened = versionIn((await get('/admin/oauthclients/karte/edit', orga)).body);
    expect(opened).toMatch(/^\d+$/);
    const form = (name: string, version: string | undefined): [string, string][] => [['csrf_token', orga.csrfToken], ['name', name], ['confidential', '1'],
      ['redirect_uris', 'https://karte.example.org/v2/cb'], ['scopes', 'email'], ['required_regions', String(cologne)], ...(version === undefined ? [] : [['version', version] as [string, string]])];
    // The other operator, in a form opened at the same time, saves first.
    expect((await post('/admin/oauthclients/karte', orga, form('Karte von Anna', opened))).statusCode).toBe(303);
    const newer = versionIn((await get('/admin/oauthclients/karte/edit', orga)).body);
    expect(newer).not.toBe(opened);

    const late = await post('/admin/oauthclients/karte', orga, form('Karte von Ben', opened));
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('Jemand anderes hat diese App gerade geändert. Hier wurde nichts gespeichert');
    expect(late.body).toContain(`name="version" value="${opened}"`);
    expect(late.body).toContain('<p><a href="/admin/oauthclients/karte/edit">Die App mit den gespeicherten Einstellungen öffnen</a></p>');
    // A correction of a rejected field keeps the version the form was opened with.
    const corrected = await post('/admin/oauthclients/karte', orga, [...form('', opened)]);
    expect(corrected.statusCode).toBe(400);
    expect(corrected.body).toContain(`name="version" value="${opened}"`);
    for (const forged of ['x', '2147483648', '999999999999999']) expect((await post('/admin/oauthclients/karte', orga, form('Karte von Ben', forged))).statusCode).toBe(409);
    expect(await findClient(t.db, 'karte')).toMatchObject({ name: 'Karte von Anna' });

    // Saving exactly what is stored now changes nothing, whatever version the form had.
    expect((await post('/admin/oauthclients/karte', orga, form('Karte von Anna', opened))).headers.location).toBe('/admin/oauthclients?unchanged=karte');
    // A form opened afresh saves; one without the field (opened before it existed) is the last save.
    expect((await post('/admin/oauthclients/karte', orga, form('Karte 2', newer))).statusCode).toBe(303);
    expect((await post('/admin/oauthclients/karte', orga, form('Karte 2b', undefined))).statusCode).toBe(303);
    expect((await post('/admin/oauthclients/karte', orga, form('Karte 2', undefined))).statusCode).toBe(303);
    expect(await findClient(t.db, 'karte')).toMatchObject({ name: 'Karte 2' });
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
    // The audit log names who did it: the organisation member.
    await t.app.securityEvents.settled();
    const stored = await t.db.selectFrom('security_events').select(['event', 'details']).where('client_id', '=', 'rotating').orderBy('id').execute();
    expect(stored).toEqual([
      { event: 'oauth.client.created', details: { confidential: true, actorId: orgaId } },
      { event: 'oauth.client.changed', details: { change: 'secret', actorId: orgaId } },
    ]);
  });

  it('two operators who opened the page at once: the second confirmation gets 409 and no secret, and the first secret stands', async () => {
    await post('/admin/oauthclients', orga, fullForm('twice', orga.csrfToken));
    const versionIn = (html: string) => /<input type="hidden" name="version" value="(\d+)">/.exec(html)?.[1];
    const opened = versionIn((await get('/admin/oauthclients/twice/secret', orga)).body);
    expect(opened).toMatch(/^\d+$/);
    expect((await get('/admin/oauthclients/twice/delete', orga)).body).not.toContain('name="version"');
    const first = await post('/admin/oauthclients/twice/secret', orga, [['csrf_token', orga.csrfToken], ['version', opened!]]);
    expect(first.statusCode).toBe(200);
    const firstSecret = secretIn(first.body)!;

    const second = await post('/admin/oauthclients/twice/secret', orga, [['csrf_token', orga.csrfToken], ['version', opened!]]);
    expect(second.statusCode).toBe(409);
    expect(secretIn(second.body)).toBeUndefined();
    expect(second.body).toContain('Jemand anderes hat diese App gerade geändert.');
    expect(isClientSecretValid(t.keys, await secretDigest('twice'), firstSecret)).toBe(true);
    // Its page again carries the version as it is now: confirming once more makes a new secret.
    const current = versionIn(second.body);
    expect(Number(current)).toBeGreaterThan(Number(opened));
    for (const version of ['-1', 'x', '99999999999']) {
      expect((await post('/admin/oauthclients/twice/secret', orga, [['csrf_token', orga.csrfToken], ['version', version]])).statusCode).toBe(409);
    }
    const again = await post('/admin/oauthclients/twice/secret', orga, [['csrf_token', orga.csrfToken], ['version', current!]]);
    expect(again.statusCode).toBe(200);
    expect(isClientSecretValid(t.keys, await secretDigest('twice'), secretIn(again.body)!)).toBe(true);
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
