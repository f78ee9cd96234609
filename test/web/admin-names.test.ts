/**
 * The client admin screen refuses a name with C1 controls or bidirectional
 * overrides (docs/security.md "Spoofed names"): such a name on the consent
 * page would show members something else than it says. The message stands
 * next to the field, in the reader's language; nothing is written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import type { TestSession } from '../helpers/session.ts';
import { useAdminScreen, type Form } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, post } = screen;
let orga: TestSession;
beforeAll(async () => {
  orga = screen.orga;
  expect((await post('/admin/oauthclients', orga, form('karte', 'Karte'))).statusCode).toBe(303);
});

const SPOOFING = [['U+0085', '\u0085'], ['U+009B', '\u009b'], ['U+202E', '\u202e'], ['U+2067', '\u2067']];
const GERMAN = 'Der Name darf keine Steuerzeichen (etwa Tabulatoren oder Zeilenumbrüche) und keine unsichtbaren Zeichen enthalten, die die Schreibrichtung umkehren (U+202A–U+202E, U+2066–U+2069).';
const ENGLISH = 'The name may not contain control characters (such as tabs or line breaks) or invisible characters that reverse the writing direction (U+202A–U+202E, U+2066–U+2069).';

/** A public client (created with 303; a confidential one shows its secret with 200). */
function form(clientId: string, name: string): Form {
  return [['csrf_token', orga.csrfToken], ['client_id', clientId], ['name', name], ['redirect_uris', `https://${clientId}.example/cb`]];
}

const clientCount = async () => Number((await t.db.selectFrom('oauth_clients').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('a client name with a C1 control or a bidirectional override', () => {
  it.each(SPOOFING)('%s: creating and editing answer 400 with the message next to the name, in German and English, and write nothing', async (_code, c) => {
    const before = await clientCount();
    const created = await post('/admin/oauthclients', orga, form('spoof', `Karte ${c}nigol`));
    expect(created.statusCode).toBe(400);
    expect(created.body).toContain(`<p class="field-error" id="name-error">${GERMAN}</p>`);
    expect(created.body).not.toContain('id="redirectUris-error"');
    const english = await post('/admin/oauthclients', orga, form('spoof', `${c}Karte`), { 'accept-language': 'en' });
    expect(english.statusCode).toBe(400);
    expect(english.body).toContain(`<p class="field-error" id="name-error">${ENGLISH}</p>`);
    expect(await clientCount()).toBe(before);
    expect(await findClient(t.db, 'spoof')).toBeUndefined();

    const edited = await post('/admin/oauthclients/karte', orga, form('karte', `Kar${c}te`));
    expect(edited.statusCode).toBe(400);
    expect(edited.body).toContain(`<p class="field-error" id="name-error">${GERMAN}</p>`);
    expect(await findClient(t.db, 'karte')).toMatchObject({ name: 'Karte' });
  });

  it('ordinary non-ASCII names are accepted: umlauts, ß, emoji, Arabic and Hebrew letters', async () => {
    const created = await post('/admin/oauthclients', orga, form('cafe', 'Café Süß ☕ مقهى'));
    expect(created.statusCode).toBe(303);
    expect(await findClient(t.db, 'cafe')).toMatchObject({ name: 'Café Süß ☕ مقهى' });
    const edited = await post('/admin/oauthclients/karte', orga, form('karte', 'Karte 🗺 שלום'));
    expect(edited.statusCode).toBe(303);
    expect(await findClient(t.db, 'karte')).toMatchObject({ name: 'Karte 🗺 שלום' });
  });
});
