/** Content entries (SPEC-API): POST/DELETE /api/contents, PATCH /api/content, GET /api/contents. */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { BAD_IDS, expectKeys, expectProblem } from '../helpers/api.ts';
import { makeContent } from '../helpers/api-factories.ts';
import type { TestSession } from '../helpers/session.ts';

const NAME_PROBLEM = 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)';

const t = useTestApp();
const s: Record<string, TestSession> = {};

beforeAll(async () => {
  s.orga = await t.as('orga');
  s.ambassador = await t.as('ambassador');
});

const countContents = async () => (await t.db.selectFrom('contents').select('id').execute()).length;
const row = (id: number) => t.db.selectFrom('contents').selectAll().where('id', '=', id).executeTakeFirst();

describe('POST /api/contents', () => {
  it('lets orga create an entry, stripping HTML tags from name and title; answers {id}', async () => {
    const before = t.clock.now().getTime();
    const response = await t.call('POST', '/api/contents', s.orga, { name: '<b>faq</b>', title: 'Häufige <i>Fragen</i><script', body: '<p>Antworten</p>' });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { id: number };
    expectKeys(body, ['id']);
    const stored = await row(body.id);
    expect(stored).toMatchObject({ name: 'faq', title: 'Häufige Fragen', body: '<p>Antworten</p>' });
    expect(stored!.last_modified.getTime()).toBeGreaterThanOrEqual(before);
  });

  it('takes a body of 500,000 characters however many bytes they are: euro signs, escaped controls, escaped emoji; one more is 400', async () => {
    for (const body of ['€'.repeat(500_000), '\u0001'.repeat(500_000)]) {
      const created = await t.call('POST', '/api/contents', s.orga, { name: 'long', title: 'Long', body });
      expect(created.statusCode, created.body.slice(0, 200)).toBe(200);
      expect((await row(created.json().id))!.body).toBe(body);
    }
    // Every emoji as a surrogate pair of escapes (12 bytes), as Python's json.dumps writes it.
    const escaped = `{"name":"long","title":"Long","body":"${'\\ud83d\\ude00'.repeat(500_000)}"}`;
    const emoji = await t.call('POST', '/api/contents', s.orga, escaped, { 'content-type': 'application/json' });
    expect(emoji.statusCode, emoji.body.slice(0, 200)).toBe(200);
    expect((await row(emoji.json().id))!.body).toBe('😀'.repeat(500_000));
    const edited = await t.call('PATCH', `/api/content/${await makeContent(t.db)}`, s.orga, { body: '€'.repeat(500_000) });
    expect(edited.statusCode).toBe(200);
    const over = await t.call('POST', '/api/contents', s.orga, { name: 'long', title: 'Long', body: '€'.repeat(500_001) });
    expect(over.statusCode).toBe(400);
    expect(over.json().errors).toEqual([{ field: 'body/body', message: 'must NOT have more than 500000 characters' }]);
  });

  it('answers 401 logged out, 403 without CSRF or to non-orga (even with a bad body), 400 for empty or missing fields', async () => {
    const before = await countContents();
    const good = { name: 'x', title: 'y', body: 'z' };
    expectProblem(await t.call('POST', '/api/contents', undefined, good), 401, 'auth.unauthenticated');
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/contents', headers: { cookie: s.orga!.cookie }, payload: good }), 403, 'auth.csrf-invalid');
    expectProblem(await t.call('POST', '/api/contents', s.ambassador, good), 403, 'content.forbidden');
    expectProblem(await t.call('POST', '/api/contents', s.ambassador, { name: '' }), 403, 'content.forbidden');
    for (const bad of [{ ...good, name: '' }, { ...good, title: '<b></b>' }, { title: 'y', body: 'z' }, { ...good, body: '' }, { ...good, name: null }, { ...good, title: 'x'.repeat(501) }, { ...good, body: 'a\u0000b' }, { ...good, name: '\u0000' }, []]) {
      expectProblem(await t.call('POST', '/api/contents', s.orga, bad), 400, 'request.invalid');
    }
    expect(await countContents()).toBe(before);
  });
});

describe('every refused field of a content entry in one answer', () => {
  it('reports the schema\'s errors and the fields left empty once their tags are gone together, creating nothing', async () => {
    const before = await countContents();
    const response = await t.call('POST', '/api/contents', s.orga, { name: '<b></b>', title: '<i></i>', body: '' });
    expectProblem(response, 400, 'request.invalid');
    expect(response.json().errors).toEqual([
      { field: 'body/body', message: 'must NOT have fewer than 1 characters' },
      { field: 'body/name', message: 'must not be empty' },
      { field: 'body/title', message: 'must not be empty' },
    ]);
    expect(await countContents()).toBe(before);
  });

  it('names a field once when both the schema and a rule refuse it, and leaves values of the wrong type to the schema', async () => {
    const id = await makeContent(t.db);
    const before = await row(id);
    const response = await t.call('PATCH', `/api/content/${id}`, s.orga, { name: 5, title: '<p> </p>', body: '' });
    expectProblem(response, 400, 'request.invalid');
    expect(response.json().errors).toEqual([
      { field: 'body/name', message: 'must be string' },
      { field: 'body/body', message: 'must NOT have fewer than 1 characters' },
      { field: 'body/title', message: 'must not be empty' },
    ]);
    expect(await row(id)).toEqual(before);
  });
});

describe('GET /api/contents/{contentId}, PATCH /api/content/{contentId}', () => {
  it('returns the entry {id, name, title, body, lastModified}, to anyone', async () => {
    const id = await makeContent(t.db);
    const response = await t.call('GET', `/api/contents/${id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id, name: 'impressum', title: 'Impressum', body: '<p>Text</p>', lastModified: '2026-01-01T00:00:00.000Z' });
    expectProblem(await t.call('GET', '/api/contents/999999'), 404, 'content.not-found');
  });

  it('lets orga change some fields and sets lastModified', async () => {
    const id = await makeContent(t.db);
    t.clock.advance(60);
    const before = t.clock.now().getTime();
    const response = await t.call('PATCH', `/api/content/${id}`, s.orga, { title: '<h1>Impressum neu</h1>' });
    expect(response.statusCode, response.body).toBe(200);
    const entry = response.json() as { lastModified: string };
    expect(entry).toMatchObject({ id, name: 'impressum', title: 'Impressum neu', body: '<p>Text</p>' });
    expect(entry.lastModified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(entry.lastModified)).toBeGreaterThanOrEqual(before);
    expect((await row(id))!.last_modified.toISOString()).toBe(entry.lastModified);
    expectKeys(response.json(), ['id', 'name', 'title', 'body', 'lastModified']);
  });

  it('answers 404 unknown before 403 non-orga before 400 bad body, changing nothing', async () => {
    const id = await makeContent(t.db);
    const before = await row(id);
    expectProblem(await t.call('PATCH', '/api/content/999999', s.ambassador, { name: '' }), 404, 'content.not-found');
    expectProblem(await t.call('PATCH', `/api/content/${id}`, s.ambassador, { name: '' }), 403, 'content.forbidden');
    expectProblem(await t.call('PATCH', `/api/content/${id}`, undefined, { name: 'a' }), 401);
    // Only unknown or read-only fields: nothing to change, so 400 and lastModified stays.
    for (const bad of [{ name: '' }, {}, { title: '<br>' }, { body: null }, [1], { id: 7 }, { lastModified: '2030-01-01T00:00:00Z', foo: 1 }]) {
      expectProblem(await t.call('PATCH', `/api/content/${id}`, s.orga, bad), 400, 'request.invalid');
    }
    expect(await row(id)).toEqual(before);
    for (const bad of BAD_IDS) {
      const response = await t.call('PATCH', `/api/content/${bad}`, s.orga, { name: '' });
      expect([400, 404], `${bad}: ${response.body}`).toContain(response.statusCode);
    }
  });
});

describe('names and titles shown to people (docs/security.md "Spoofed names")', () => {
  const SPOOFING = [['U+0085', '\u0085'], ['U+009B', '\u009b'], ['U+202E', '\u202e'], ['U+2067', '\u2067']];
  const refused = (field: string) => ({ field: `body/${field}`, message: NAME_PROBLEM });

  it.each(SPOOFING)('POST and PATCH refuse a name or title with %s: 400 request.invalid naming the field, nothing written', async (_code, c) => {
    const before = await countContents();
    const created = await t.call('POST', '/api/contents', s.orga, { name: `faq${c}`, title: `${c}Fragen`, body: `<p>${c}</p>` });
    expectProblem(created, 400, 'request.invalid');
    expect(created.json().errors).toEqual([refused('name'), refused('title')]);
    expect(await countContents()).toBe(before);
    const id = await makeContent(t.db);
    const stored = await row(id);
    for (const field of ['name', 'title']) {
      const patched = await t.call('PATCH', `/api/content/${id}`, s.orga, { [field]: `Impres${c}sum` });
      expectProblem(patched, 400, 'request.invalid');
      expect(patched.json().errors).toEqual([refused(field)]);
    }
    expect(await row(id)).toEqual(stored);
  });

  it('accepts ordinary non-ASCII names and titles: umlauts, ß, emoji, Arabic and Hebrew letters', async () => {
    const created = await t.call('POST', '/api/contents', s.orga, { name: 'größe-😀', title: 'أسئلة שאלות Süß', body: '<p>x</p>' });
    expect(created.statusCode, created.body).toBe(200);
    expect(await row(created.json().id)).toMatchObject({ name: 'größe-😀', title: 'أسئلة שאלות Süß' });
    const patched = await t.call('PATCH', `/api/content/${created.json().id}`, s.orga, { name: 'עברית', title: 'عربي 🍞' });
    expect(patched.json()).toMatchObject({ name: 'עברית', title: 'عربي 🍞' });
  });
});

describe('DELETE /api/contents/{contentId}', () => {
  it('lets orga delete; 401, 403, 404 otherwise, deleting nothing', async () => {
    const id = await makeContent(t.db);
    expectProblem(await t.call('DELETE', `/api/contents/${id}`), 401);
    expectProblem(await t.call('DELETE', `/api/contents/${id}`, s.ambassador), 403, 'content.forbidden');
    expect(await row(id)).toBeDefined();
    const response = await t.call('DELETE', `/api/contents/${id}`, s.orga);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    expect(await row(id)).toBeUndefined();
    expectProblem(await t.call('DELETE', `/api/contents/${id}`, s.orga), 404, 'content.not-found');
    for (const bad of BAD_IDS) {
      const r = await t.call('DELETE', `/api/contents/${bad}`, s.orga);
      expect([400, 404], `${bad}: ${r.body}`).toContain(r.statusCode);
    }
  });
});
