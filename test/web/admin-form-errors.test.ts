/**
 * A refused admin form marks every wrong field (aria-invalid, the message
 * beside it named by aria-describedby) and lists each in the error summary at
 * the top, focused on load, with a link to the field; fields that are fine
 * stay unmarked. Create and edit forms and the confirmation forms.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import { describeServiceErrors } from '../../src/web/admin/admin-form.ts';
import { adminMessages } from '../../src/web/admin/admin.messages.ts';
import { FieldMarks, labelsFrom } from '../../src/web/form-marks.ts';
import { translator } from '../../src/web/i18n.ts';
import type { TestSession } from '../helpers/session.ts';
import { useAdminScreen, type Form } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, post, get, fullForm } = screen;
let orga: TestSession;
beforeAll(async () => {
  ({ orga } = screen);
  expect((await post('/admin/oauthclients', orga, fullForm('karte', orga.csrfToken))).statusCode).toBe(200);
});

/** The opening tag of the element with this id. */
function tagOf(html: string, id: string): string {
  const tag = new RegExp(`<(?:input|textarea|select|fieldset)\\b[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0];
  if (tag === undefined) throw new Error(`no field #${id}`);
  return tag;
}

/** The summary's links, in order: [href, text]. */
function summaryLinks(html: string): [string, string][] {
  const summary = /<div class="error-summary" role="alert" tabindex="-1" autofocus aria-labelledby="error-summary-heading">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';
  return [...summary.matchAll(/<li><a href="([^"]+)">([^<]*)<\/a><\/li>/g)].map((m) => [m[1] as string, m[2] as string]);
}

/** Every field in `expected` marked with its message (help text first where it has one); no other field marked. */
function expectMarked(html: string, expected: Array<[id: string, message: string, describedBy: string]>): void {
  for (const [id, message, describedBy] of expected) {
    const tag = tagOf(html, id);
    expect(tag, id).toContain(` aria-describedby="${describedBy}" aria-invalid="true"`);
    expect(html).toContain(`<p class="field-error" id="${id}-error">${message}</p>`);
  }
  expect(html.match(/aria-invalid="true"/g)?.length ?? 0).toBe(expected.length);
  expect(html.match(/class="field-error"/g)?.length ?? 0).toBe(expected.length);
}

const EVERY_CHECKED_FIELD_WRONG: Form = [
  ['client_id', 'has space'], ['name', ' '], ['confidential', '1'], ['redirect_uris', 'http://app.example/cb'],
  ['post_logout_redirect_uris', 'https://app.example/bye#x'], ['backchannel_logout_uri', 'ftp://app.example/logout'],
  ['scopes', 'admin'], ['grant_types', 'password'], ['id_token_signed_response_alg', 'HS256'],
];

describe('the client form, refused', () => {
  it('marks every wrong field and lists each in the summary, in the order of the form (German)', async () => {
    const response = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ...EVERY_CHECKED_FIELD_WRONG]);
    expect(response.statusCode).toBe(400);
    const html = response.body;
    expect(html).toContain('<h2 id="error-summary-heading">Bitte korrigiere die markierten Felder.</h2>');
    const clientId = 'Die Client-ID darf nur Buchstaben, Ziffern, „-“, „_“ und „.“ enthalten und höchstens 100 Zeichen lang sein.';
    const uri = (u: string) => `Ungültig: „${u}“. Erlaubt sind absolute URIs ohne #-Fragment und ohne Leerzeichen: https, http nur für localhost, 127.0.0.1 oder [::1], oder ein eigenes Schema einer nativen App (com.example.app:/callback).`;
    const backchannel = 'Ungültig. Erlaubt ist eine absolute URL ohne #-Fragment und ohne Leerzeichen: https, http nur für localhost, 127.0.0.1 oder [::1].';
    expectMarked(html, [
      ['clientId', clientId, 'clientId-help clientId-error'],
      ['name', 'Bitte gib einen Namen an.', 'name-help name-error'],
      ['redirectUris', uri('http://app.example/cb'), 'redirectUris-help redirectUris-error'],
      ['postLogoutRedirectUris', uri('https://app.example/bye#x'), 'postLogoutRedirectUris-help postLogoutRedirectUris-error'],
      ['backchannelLogoutUri', backchannel, 'backchannelLogoutUri-help backchannelLogoutUri-error'],
      ['scopes', 'Bitte wähle nur angebotene Scopes.', 'scopes-error'],
      ['grantTypes', 'Bitte wähle nur angebotene Grant-Types.', 'grantTypes-error'],
      ['idTokenSignedResponseAlg', 'Bitte wähle einen der angebotenen Algorithmen.', 'idTokenSignedResponseAlg-help idTokenSignedResponseAlg-error'],
    ]);
    // A group of checkboxes in error can take the focus the summary's link moves to it.
    expect(tagOf(html, 'scopes')).toBe('<fieldset id="scopes" aria-describedby="scopes-error" aria-invalid="true" tabindex="-1">');
    expect(tagOf(html, 'confidential')).toBe('<input type="checkbox" id="confidential" name="confidential" value="1" checked aria-describedby="confidential-help">');
    expect(summaryLinks(html)).toEqual([
      ['#clientId', `Client-ID: ${clientId}`],
      ['#name', 'Name: Bitte gib einen Namen an.'],
      ['#redirectUris', `Redirect-URIs: ${uri('http://app.example/cb')}`],
      ['#postLogoutRedirectUris', `Redirect-URIs nach dem Abmelden: ${uri('https://app.example/bye#x')}`],
      ['#backchannelLogoutUri', `Back-Channel-Logout-URI: ${backchannel}`],
      ['#scopes', 'Scopes: Bitte wähle nur angebotene Scopes.'],
      ['#grantTypes', 'Grant-Types: Bitte wähle nur angebotene Grant-Types.'],
      ['#idTokenSignedResponseAlg', 'Signaturalgorithmus: Bitte wähle einen der angebotenen Algorithmen.'],
    ]);
    expect(await findClient(t.db, 'has space')).toBeUndefined();
  });

  it('in English, the service\'s verdicts too: a taken client id and an unknown region', async () => {
    const response = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', 'karte'], ['name', 'Second'],
      ['redirect_uris', 'https://x.example/cb'], ['required_regions', '999999']], { 'accept-language': 'en' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('<h2 id="error-summary-heading">Please correct the marked fields.</h2>');
    expectMarked(response.body, [
      ['clientId', 'This client ID is already taken.', 'clientId-help clientId-error'],
      ['requiredRegions', 'At least one of the selected regions does not exist (any more).', 'requiredRegions-help requiredRegions-error'],
    ]);
    expect(summaryLinks(response.body)).toEqual([
      ['#clientId', 'Client ID: This client ID is already taken.'],
      ['#requiredRegions', 'Required regions: At least one of the selected regions does not exist (any more).'],
    ]);
    expect((await findClient(t.db, 'karte'))?.name).toBe('Foodsharing Karte');
  });

  it('on the edit form: the stored client keeps its values', async () => {
    const response = await post('/admin/oauthclients/karte', orga, [['csrf_token', orga.csrfToken], ['name', ''], ['confidential', '1'],
      ['redirect_uris', 'https://karte.example.org/callback'], ['grant_types', 'implicit']], { 'accept-language': 'en' });
    expect(response.statusCode).toBe(400);
    expectMarked(response.body, [
      ['name', 'Please enter a name.', 'name-help name-error'],
      ['grantTypes', 'Please choose only the offered grant types.', 'grantTypes-error'],
    ]);
    expect(summaryLinks(response.body)).toEqual([['#name', 'Name: Please enter a name.'], ['#grantTypes', 'Grant types: Please choose only the offered grant types.']]);
    expect(tagOf(response.body, 'clientId')).toBe('<input type="text" id="clientId" value="karte" readonly aria-describedby="clientId-help">');
    expect((await findClient(t.db, 'karte'))?.name).toBe('Foodsharing Karte');
  });

  it('an expired form: the summary says so, with no field marked', async () => {
    const response = await post('/admin/oauthclients', orga, fullForm('expired', 'not-the-token'), { 'accept-language': 'en' });
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('<div class="error-summary" role="alert" tabindex="-1" autofocus aria-labelledby="error-summary-heading">\n'
      + '  <h2 id="error-summary-heading">The form has expired. Please reload the page and try again.</h2>\n</div>');
    expectMarked(response.body, []);
    expect(await findClient(t.db, 'expired')).toBeUndefined();
  });

  it('a form that is fine has no summary and no marks', async () => {
    const page = await get('/admin/oauthclients/new', orga);
    expect(page.body).not.toContain('error-summary');
    expectMarked(page.body, []);
  });
});

describe('a field the form has no wording for', () => {
  it('is marked as itself when the service names it, labelled where the page has a label', () => {
    const de = translator(adminMessages, 'de');
    const messages = describeServiceErrors([
      { field: 'jwksUri', message: 'must be https' }, { field: 'softwareId', message: 'unknown' }, { field: 'name', message: 'missing' },
    ], de);
    expect(messages).toEqual({ jwksUri: 'Dieser Wert ist ungültig.', softwareId: 'Dieser Wert ist ungültig.', name: 'Bitte gib einen Namen an.' });
    const marks = new FieldMarks(messages, labelsFrom(de, 'admin.'));
    expect(marks.attributes('jwksUri', { help: true })).toBe(' aria-describedby="jwksUri-help jwksUri-error" aria-invalid="true"');
    expect(marks.problems).toEqual([
      { id: 'jwksUri', label: 'URL der öffentlichen Schlüssel (jwks_uri)', message: 'Dieser Wert ist ungültig.' },
      { id: 'softwareId', label: undefined, message: 'Dieser Wert ist ungültig.' },
      { id: 'name', label: 'Name', message: 'Bitte gib einen Namen an.' },
    ]);
  });
});

describe('the confirmation forms, refused', () => {
  it('delete and new secret: an expired form is summarised and focused', async () => {
    for (const path of ['delete', 'secret']) {
      const response = await post(`/admin/oauthclients/karte/${path}`, orga, [['csrf_token', 'stale']], { 'accept-language': 'en' });
      expect(response.statusCode, path).toBe(403);
      expect(response.body).toContain('<div class="error-summary" role="alert" tabindex="-1" autofocus aria-labelledby="error-summary-heading">\n'
        + '  <h2 id="error-summary-heading">The form has expired. Please reload the page and try again.</h2>\n</div>');
    }
    expect(await findClient(t.db, 'karte')).toBeDefined();
    // On record (access.denied, reason csrf), as an admin action on a member is.
    await t.app.securityEvents.settled();
    const denied = await t.db.selectFrom('security_events').select('details').where('event', '=', 'access.denied').where(sql<boolean>`details ->> 'reason' = 'csrf'`).execute();
    expect(denied.map((e) => (e.details as { page: string }).page).sort()).toEqual(['POST /admin/oauthclients', 'POST /admin/oauthclients/:clientId/delete', 'POST /admin/oauthclients/:clientId/secret']);
  });
});
