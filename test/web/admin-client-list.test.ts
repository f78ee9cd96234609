/**
 * The admin screen's client list: search by name or client id (a GET form,
 * `q`), 25 clients a page in client id order, a pager whose current page is
 * marked, "no clients match", and refused page numbers.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import type { TestSession } from '../helpers/session.ts';
import { useAdminScreen } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, get } = screen;
let orga: TestSession;

/** app-01 … app-30 ("Ausgabestelle 1" …), and three more to find by name. */
const NUMBERED = Array.from({ length: 30 }, (_, i) => `app-${String(i + 1).padStart(2, '0')}`);

beforeAll(async () => {
  ({ orga } = screen);
  const add = (clientId: string, name: string) => createClient(t.db, t.keys, {
    clientId, name, confidential: false, redirectUris: ['https://app.example/cb'], scopes: [], grantTypes: [], requiredRegions: [],
  });
  for (const [index, clientId] of NUMBERED.entries()) await add(clientId, `Ausgabestelle ${index + 1}`);
  await add('karte', 'Foodsharing Karte');
  await add('bio.shop', '100% Bio_Laden');
  await add('zz-last', 'Kartenspiel');
});

/** The client ids of the listed rows, in order. */
function listed(html: string): string[] {
  return [...html.matchAll(/<th scope="row"><code>([^<]+)<\/code><\/th>/g)].map((m) => m[1] as string);
}

/** The pager's items as "label→href", the current page in brackets. */
function pagerOf(html: string): string[] {
  const nav = /<nav class="pager" aria-label="[^"]+">([\s\S]*?)<\/nav>/.exec(html)?.[1];
  if (nav === undefined) return [];
  return [...nav.matchAll(/<li(?: class="gap")?>(?:<a href="([^"]+)"(?: rel="(?:prev|next)")?( aria-current="page")?>(.*?)<\/a>|…)<\/li>/g)]
    .map(([, href, current, label]) => {
      if (href === undefined) return '…';
      const text = (label ?? '').replace(/<span class="visually-hidden">[^<]*<\/span>/, '');
      return current ? `[${text}]→${href.replaceAll('&amp;', '&')}` : `${text}→${href.replaceAll('&amp;', '&')}`;
    });
}

describe('the client list', () => {
  it('shows 25 clients a page in client id order, with a pager', async () => {
    const first = await get('/admin/oauthclients', orga);
    expect(first.statusCode).toBe(200);
    const all = [...NUMBERED, 'bio.shop', 'karte', 'zz-last'].sort();
    expect(listed(first.body)).toEqual(all.slice(0, 25));
    expect(first.body).toContain('<p id="client-count">Clients 1–25 von 33</p>');
    expect(first.body).toContain('<title>OAuth-Clients (Seite 1 von 2) · Foodsharing</title>');
    expect(pagerOf(first.body)).toEqual(['[1]→/admin/oauthclients', '2→/admin/oauthclients?page=2', 'Nächste Seite ›→/admin/oauthclients?page=2']);
    expect(first.body).toContain('<li><a href="/admin/oauthclients" aria-current="page"><span class="visually-hidden">Seite </span>1</a></li>');

    const second = await get('/admin/oauthclients?page=2', orga, { 'accept-language': 'en' });
    expect(second.statusCode).toBe(200);
    expect(listed(second.body)).toEqual(all.slice(25));
    expect(second.body).toContain('<p id="client-count">Clients 26–33 of 33</p>');
    expect(pagerOf(second.body)).toEqual(['‹ Previous page→/admin/oauthclients', '1→/admin/oauthclients', '[2]→/admin/oauthclients?page=2']);
    expect(second.body).toContain('<nav class="pager" aria-label="Pages of the client list">');
  });

  it('finds clients by part of the name or the client id, in any case, and pages the result', async () => {
    const byName = await get('/admin/oauthclients?q=KARTE', orga);
    expect(listed(byName.body)).toEqual(['karte', 'zz-last']);
    expect(byName.body).toContain('<p id="client-count">Clients 1–2 von 2, die zu „KARTE“ passen</p>');
    expect(byName.body).toContain('<input type="search" id="client-search" name="q" value="KARTE" maxlength="200"');
    expect(byName.body).toContain('<p><a href="/admin/oauthclients">Alle Clients zeigen</a></p>');
    expect(pagerOf(byName.body)).toEqual([]);
    expect(byName.body).toContain('<title>OAuth-Clients · Foodsharing</title>');

    const byId = await get('/admin/oauthclients?q=app-1', orga);
    expect(listed(byId.body)).toEqual(['app-10', 'app-11', 'app-12', 'app-13', 'app-14', 'app-15', 'app-16', 'app-17', 'app-18', 'app-19']);

    const many = await get('/admin/oauthclients?q=+app-+&page=2', orga);
    expect(listed(many.body)).toEqual(NUMBERED.slice(25));
    expect(pagerOf(many.body)).toEqual(['‹ Vorherige Seite→/admin/oauthclients?q=app-', '1→/admin/oauthclients?q=app-', '[2]→/admin/oauthclients?q=app-&page=2']);
  });

  it('takes % and _ literally', async () => {
    expect(listed((await get('/admin/oauthclients?q=%25', orga)).body)).toEqual(['bio.shop']);
    expect(listed((await get('/admin/oauthclients?q=o_L', orga)).body)).toEqual(['bio.shop']);
    expect(listed((await get('/admin/oauthclients?q=%5C', orga)).body)).toEqual([]);
  });

  it('says when no client matches, escaping the search', async () => {
    const none = await get('/admin/oauthclients?q=%3Cb%3Enothing', orga, { 'accept-language': 'en' });
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('<p id="client-count">No clients match &quot;&lt;b&gt;nothing&quot;.</p>');
    expect(none.body).not.toContain('<table>');
    expect(listed(none.body)).toEqual([]);
    // No name or client id holds a control character; PostgreSQL never sees it.
    const nul = await get('/admin/oauthclients?q=a%00b', orga, { 'accept-language': 'en' });
    expect(nul.statusCode).toBe(200);
    expect(listed(nul.body)).toEqual([]);
    expect(nul.body).toContain('<p id="client-count">No clients match &quot;a');
  });

  it('refuses a page number that is none (400) or past the last page (404), with a link back', async () => {
    for (const page of ['0', 'abc', '-1', '1.5', '1000001']) {
      const response = await get(`/admin/oauthclients?page=${page}`, orga);
      expect(response.statusCode, page).toBe(400);
      expect(response.body).toContain('Diese Seite der Client-Liste gibt es nicht.');
      expect(response.body).toContain('<a href="/admin/oauthclients">Zur Übersicht</a>');
    }
    const past = await get('/admin/oauthclients?q=karte&page=2', orga);
    expect(past.statusCode).toBe(404);
    expect(past.body).toContain('<a href="/admin/oauthclients?q=karte">Zur Übersicht</a>');
    expect((await get(`/admin/oauthclients?q=${'x'.repeat(201)}`, orga)).statusCode).toBe(400);
  });

  it('answers any search text, raw bytes included, with the list page, never an error', async () => {
    const percentEncoded = (bytes: Uint8Array) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const texts = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }).map((text) => percentEncoded(Buffer.from(text, 'utf8'))),
      fc.uint8Array({ maxLength: 60 }).map(percentEncoded),
    );
    await fc.assert(fc.asyncProperty(texts, async (q) => {
      const response = await get(`/admin/oauthclients?q=${q}`, orga);
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('<p id="client-count">');
    }), { numRuns: 60 });
    for (const q of ['%ff%fe', '%ed%a0%80', '%e2%80%ae', "'%20or%201=1--", '%5C%25%5F']) {
      expect((await get(`/admin/oauthclients?q=${q}`, orga)).statusCode, q).toBe(200);
    }
  });
});
