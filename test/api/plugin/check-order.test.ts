/**
 * SPEC-API's order of checks for bodies that cannot even be parsed: 401 →
 * CSRF 403 → path 400 → 404 → 403 → only then the body (400 for broken
 * JSON, 415 for a media type that is not JSON). Oversized bodies are still
 * cut off first (413). Nothing is written on any refusal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createPoll } from '../../../src/api/polls/polls.service.ts';
import { useTestApp, type LoggedIn } from '../../helpers/fixture.ts';
import { expectProblem } from '../../helpers/api.ts';
import { makeContent } from '../../helpers/api-factories.ts';
import { makeRegion } from '../../helpers/factories.ts';

/** [label, payload, content type, status and code once the body is looked at]. */
const UNPARSABLE: Array<[string, string, string, number, string]> = [
  ['broken JSON', '{"a":', 'application/json', 400, 'request.invalid'],
  ['XML', '<basket/>', 'application/xml', 415, 'request.unsupported-media-type'],
  ['a form', 'description=x', 'application/x-www-form-urlencoded', 415, 'request.unsupported-media-type'],
];

const t = useTestApp();
const s: Record<string, LoggedIn> = {};
let regionId: number;
let basketId: number;
let pollId: number;
let startedPollId: number;
let contentId: number;

beforeAll(async () => {
  regionId = await makeRegion(t.db);
  s.author = await t.as('ambassador', { regionIds: [regionId], ambassadorOf: [regionId] });
  s.other = await t.as('foodsaver', { regionIds: [regionId] });
  s.orga = await t.as('orga');
  const basket = await t.app.inject({ method: 'POST', url: '/api/baskets', headers: s.author!.headers,
    payload: { description: 'Brot', contactTypes: [1], lat: 52.5, lon: 13.4, lifeTimeInDays: 3 } });
  basketId = basket.json().id;
  const now = t.clock.now().getTime();
  const poll = (startsIn: number) => createPoll(t.db, t.clock.now, {
    regionId, authorId: s.author!.user.id, name: 'Fest', description: 'Wann?', scope: 0, type: 0,
    startDate: new Date(now + startsIn), endDate: new Date(now + startsIn + 86_400_000), shuffleOptions: false,
  }, ['Juni', 'Juli']);
  pollId = await poll(86_400_000);
  startedPollId = await poll(-3_600_000);
  contentId = await makeContent(t.db);
});

async function snapshot(): Promise<string> {
  const tables = ['baskets', 'polls', 'poll_options', 'contents', 'region_pins'] as const;
  const rows = await Promise.all(tables.map((table) => t.db.selectFrom(table).selectAll().execute()));
  return JSON.stringify(rows);
}

/** [operation, method, url of something missing, url of something that exists, [session refused 403, its code], session allowed]. */
const OPERATIONS = (): Array<[string, 'PATCH' | 'POST', string, string, [string, string], string]> => [
  ['PATCH basket', 'PATCH', '/api/baskets/99999', `/api/baskets/${basketId}`, ['other', 'basket.forbidden'], 'author'],
  ['PATCH poll', 'PATCH', '/api/polls/99999', `/api/polls/${pollId}`, ['other', 'poll.forbidden'], 'author'],
  ['PATCH content', 'PATCH', '/api/content/99999', `/api/content/${contentId}`, ['other', 'content.forbidden'], 'orga'],
  ['POST region pin', 'POST', '/api/region/99999/pin', `/api/region/${regionId}/pin`, ['other', 'region.forbidden'], 'orga'],
];

describe('bodies that cannot be parsed come last in the order of checks', () => {
  it.each(UNPARSABLE)('%s: 404 for a missing thing, 403 without permission, then the body\'s 400 or 415', async (_label, payload, contentType, status, code) => {
    const before = await snapshot();
    for (const [name, method, missing, existing, [refused, forbiddenCode], allowed] of OPERATIONS()) {
      expectProblem(await t.call(method, missing, s[allowed], payload, { 'content-type': contentType }), 404);
      expectProblem(await t.call(method, existing, s[refused], payload, { 'content-type': contentType }), 403, forbiddenCode);
      const last = await t.call(method, existing, s[allowed], payload, { 'content-type': contentType });
      expectProblem(last, status, code);
      if (status === 400) expect(last.json().errors, name).toEqual([{ field: 'body', message: 'is not valid JSON' }]);
    }
    expect(await snapshot()).toBe(before);
  });

  it('reports a poll that has started (403) before its broken body', async () => {
    expectProblem(await t.call('PATCH', `/api/polls/${startedPollId}`, s.author, '{"a":', { 'content-type': 'application/json' }), 403, 'poll.started');
  });

  it('still answers 401, then the CSRF 403, then the path pattern 400 before anything else', async () => {
    expectProblem(await t.call('PATCH', `/api/baskets/${basketId}`, undefined, '{"a":', { 'content-type': 'application/json' }), 401, 'auth.unauthenticated');
    const noToken = await t.app.inject({ method: 'PATCH', url: '/api/baskets/99999', payload: '{"a":',
      headers: { cookie: s.author!.cookie, 'content-type': 'application/json' } });
    expectProblem(noToken, 403, 'auth.csrf-invalid');
    expectProblem(await t.call('PATCH', '/api/baskets/abc', s.author, '{"a":', { 'content-type': 'application/json' }), 400, 'request.invalid');
    expectProblem(await t.call('PATCH', '/api/polls/0', s.author, '<x/>', { 'content-type': 'application/xml' }), 400, 'request.invalid');
  });

  it('cuts off an oversized body with 413 at once, even for something that does not exist', async () => {
    const huge = JSON.stringify({ description: 'x'.repeat(2_000_000) });
    expectProblem(await t.call('PATCH', '/api/baskets/99999', s.author, huge, { 'content-type': 'application/json' }), 413, 'request.too-large');
    expectProblem(await t.call('PATCH', `/api/polls/${pollId}`, s.other, huge, { 'content-type': 'application/json' }), 413, 'request.too-large');
  });

  it('refuses broken JSON at once where the order does not matter (no 404 or 403 to report first)', async () => {
    const response = await t.call('POST', '/api/baskets', s.author, '{"a":', { 'content-type': 'application/json' });
    expectProblem(response, 400, 'request.invalid');
    expect(response.json().errors).toEqual([{ field: 'body', message: 'is not valid JSON' }]);
    expectProblem(await t.call('POST', '/api/baskets', s.author, '<x/>', { 'content-type': 'application/xml' }), 415, 'request.unsupported-media-type');
  });

  it('refuses a body that is not UTF-8 (RFC 8259 §8.1) instead of storing U+FFFD for its bytes, writing nothing', async () => {
    const before = await t.db.selectFrom('baskets').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rest = 'se und Brot","contactTypes":[2],"mobile":"+49 170/123-45","lat":52.5,"lon":13.4,"lifeTimeInDays":3,"weightInGrams":1500}';
    const latin1 = Buffer.concat([Buffer.from('{"description":"K'), Buffer.from([0xe4]), Buffer.from(rest)]);
    const response = await t.call('POST', '/api/baskets', s.author, latin1, { 'content-type': 'application/json' });
    expectProblem(response, 400, 'request.invalid');
    expect(response.json()).toMatchObject({ detail: 'The request body is not valid UTF-8.', errors: [{ field: 'body', message: 'is not valid UTF-8' }] });
    expect(await t.db.selectFrom('baskets').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual(before);
    // The same text in UTF-8 is taken.
    const utf8 = await t.call('POST', '/api/baskets', s.author, Buffer.from(`{"description":"Kä${rest}`), { 'content-type': 'application/json' });
    expect(utf8.statusCode, utf8.body).toBe(201);
    expect(utf8.json().description).toBe('Käse und Brot');
  });
});
