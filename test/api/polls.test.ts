import { beforeAll, describe, expect, it } from 'vitest';
import { createPoll } from '../../src/api/polls/polls.service.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { makeRegion } from '../helpers/factories.ts';
import type { TestSession } from '../helpers/session.ts';

/** The seed's poll object, field for field. */
const POLL_KEYS = ['id', 'name', 'description', 'startDate', 'endDate', 'regionId', 'scope', 'type', 'authorId', 'creationDate',
  'numValues', 'votes', 'eligibleVotesCount', 'shuffleOptions'].sort();
const HOUR = 3600_000;

const NAME_PROBLEM = 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)';

const t = useTestApp();
let regionId: number;
let authorId: number;
let author: LoggedIn;
let member: TestSession;
let outsider: TestSession;
let orga: TestSession;

beforeAll(async () => {
  regionId = await makeRegion(t.db);
  author = await t.as('ambassador', { regionIds: [regionId], ambassadorOf: [regionId] });
  authorId = author.user.id;
  member = await t.as('foodsaver', { regionIds: [regionId], verified: true });
  outsider = await t.as('foodsaver');
  orga = await t.as('orga');
});

async function makePoll(startsInHours: number, type = 2): Promise<number> {
  const now = t.clock.now().getTime();
  return createPoll(t.db, t.clock.now, {
    regionId, authorId, name: 'Sommerfest', description: 'Wann feiern wir?', scope: 0, type,
    startDate: new Date(now + startsInHours * HOUR), endDate: new Date(now + (startsInHours + 48) * HOUR), shuffleOptions: false,
  }, ['Juni', 'Juli']);
}

const snapshot = async (id: number) => ({
  poll: await t.db.selectFrom('polls').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  options: await t.db.selectFrom('poll_options').selectAll().where('poll_id', '=', id).orderBy('position').execute(),
});

describe('GET /api/polls/{pollId}', () => {
  it('answers the seed\'s poll object to members of the region, the author and orga', async () => {
    const id = await makePoll(24);
    for (const session of [author, member, orga]) {
      const response = await t.call('GET', `/api/polls/${id}`, session);
      expect(response.statusCode).toBe(200);
      expect(Object.keys(response.json()).sort()).toEqual(POLL_KEYS);
    }
    const poll = (await t.call('GET', `/api/polls/${id}`, member)).json();
    expect(poll).toMatchObject({
      id, name: 'Sommerfest', description: 'Wann feiern wir?', regionId, scope: 0, type: 2, authorId,
      numValues: 3, votes: 0, eligibleVotesCount: 2, shuffleOptions: false,
    });
  });

  it('answers 403 to others, 404 for unknown polls, 400 for bad ids, 401 logged out', async () => {
    const id = await makePoll(24);
    expect((await t.call('GET', `/api/polls/${id}`, outsider)).statusCode).toBe(403);
    expect((await t.call('GET', '/api/polls/424242', member)).statusCode).toBe(404);
    expect((await t.call('GET', `/api/polls/${'1'.repeat(25)}`, member)).statusCode).toBe(404);
    for (const bad of ['0', '-1', 'abc', '1.5']) expect((await t.call('GET', `/api/polls/${bad}`, member)).statusCode).toBe(400);
    expect((await t.call('GET', `/api/polls/${id}`, null)).statusCode).toBe(401);
  });
});

describe('PATCH /api/polls/{pollId}', () => {
  it('lets the author change texts and options before the start; options are replaced with counts reset', async () => {
    const id = await makePoll(24);
    await t.db.updateTable('poll_options').set({ counts: JSON.stringify({ 1: 4, 0: 1, '-1': 2 }) }).where('poll_id', '=', id).execute();
    await t.db.updateTable('polls').set({ votes: 7 }).where('id', '=', id).execute();
    const before = await snapshot(id);
    const response = await t.call('PATCH', `/api/polls/${id}`, author, {
      name: ' Herbstfest ', description: 'Neuer Termin', options: [' September ', 'Oktober', 'November'], shuffleOptions: true,
      scope: 3, type: 0, startDate: '2020-01-01T00:00:00Z', endDate: '2099-01-01T00:00:00Z', regionId: 1, authorId: 1,
    });
    expect(response.statusCode).toBe(200);
    const poll = response.json();
    expect(Object.keys(poll).sort()).toEqual(POLL_KEYS);
    expect(poll).toMatchObject({ name: 'Herbstfest', description: 'Neuer Termin', shuffleOptions: true, scope: 0, type: 2, regionId, authorId, votes: 0 });
    expect(poll.startDate).toBe(before.poll.start_date.toISOString());
    expect(poll.endDate).toBe(before.poll.end_date.toISOString());
    const after = await snapshot(id);
    expect(after.options.map((o) => [o.position, o.text, o.counts])).toEqual([
      [0, 'September', { 1: 0, 0: 0, '-1': 0 }], [1, 'Oktober', { 1: 0, 0: 0, '-1': 0 }], [2, 'November', { 1: 0, 0: 0, '-1': 0 }],
    ]);
    expect(after.poll).toMatchObject({ scope: 0, type: 2, start_date: before.poll.start_date, end_date: before.poll.end_date });
  });

  it('replaces only the options when nothing else is sent, and answers an empty body with the unchanged poll', async () => {
    const id = await makePoll(24);
    const before = await snapshot(id);
    const optionsOnly = await t.call('PATCH', `/api/polls/${id}`, author, { options: ['August'] });
    expect(optionsOnly.statusCode, optionsOnly.body).toBe(200);
    expect(optionsOnly.json()).toMatchObject({ id, name: 'Sommerfest', votes: 0 });
    const after = await snapshot(id);
    expect(after.options.map((o) => o.text)).toEqual(['August']);
    expect(after.poll).toEqual(before.poll);
    const empty = await t.call('PATCH', `/api/polls/${id}`, author, {});
    expect(empty.statusCode, empty.body).toBe(200);
    expect(await snapshot(id)).toEqual(after);
    await t.db.updateTable('polls').set({ start_date: new Date(t.clock.now().getTime() - HOUR) }).where('id', '=', id).execute();
    const started = await snapshot(id);
    expect((await t.call('PATCH', `/api/polls/${id}`, author, { options: ['Zu spät'] })).json()).toMatchObject({ code: 'poll.started' });
    expect(await snapshot(id)).toEqual(started);
  });

  it('keeps the options when none are sent', async () => {
    const id = await makePoll(24);
    const before = await snapshot(id);
    expect((await t.call('PATCH', `/api/polls/${id}`, author, { name: 'Nur der Name' })).statusCode).toBe(200);
    expect((await snapshot(id)).options).toEqual(before.options);
  });

  it.each([
    ['an empty name', { name: '  ' }],
    ['an empty description', { description: '' }],
    ['a NUL character', { name: 'Fest\u0000', options: ['a\u0000'] }],
    ['no options', { options: [] }],
    ['a blank option', { options: ['Juni', '   '] }],
    ['options equal after trimming', { options: ['Juni', ' Juni'] }],
    ['a non-boolean shuffleOptions', { shuffleOptions: 'yes' }],
  ])('refuses %s with 400 and changes nothing', async (_name, body) => {
    const id = await makePoll(24);
    const before = await snapshot(id);
    const response = await t.call('PATCH', `/api/polls/${id}`, author, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors.length).toBeGreaterThan(0);
    expect(await snapshot(id)).toEqual(before);
  });

  it('reports every refused field in one answer, and changes nothing', async () => {
    const id = await makePoll(24);
    const before = await snapshot(id);
    const response = await t.call('PATCH', `/api/polls/${id}`, author, { name: ' ', description: ' ', options: ['a', ' ', 'a '] });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([
      { field: 'body/name', message: 'must not be empty' },
      { field: 'body/description', message: 'must not be empty' },
      { field: 'body/options/1', message: 'must not be empty' },
      { field: 'body/options/2', message: 'repeats an earlier option' },
    ]);
    expect(await snapshot(id)).toEqual(before);
  });

  it.each([['U+0085', '\u0085'], ['U+009B', '\u009b'], ['U+202E', '\u202e'], ['U+2067', '\u2067']])(
    'refuses a name with %s (docs/security.md "Spoofed names"): 400 naming the field, nothing changes', async (_code, c) => {
      const id = await makePoll(24);
      const before = await snapshot(id);
      const response = await t.call('PATCH', `/api/polls/${id}`, author, { name: `Sommer${c}fest` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'request.invalid', errors: [{ field: 'body/name', message: NAME_PROBLEM }] });
      expect(await snapshot(id)).toEqual(before);
    });

  it('accepts a name in ordinary non-ASCII letters: umlauts, ß, emoji, Arabic and Hebrew', async () => {
    const id = await makePoll(24);
    const response = await t.call('PATCH', `/api/polls/${id}`, author, { name: 'Süßes Fest 🎉 عيد חג' });
    expect(response.statusCode, response.body).toBe(200);
    expect((await snapshot(id)).poll.name).toBe('Süßes Fest 🎉 عيد חג');
  });

  it('answers 403 to anyone but the author, and once voting has started; nothing changes', async () => {
    const id = await makePoll(1);
    const before = await snapshot(id);
    for (const session of [member, orga]) {
      const response = await t.call('PATCH', `/api/polls/${id}`, session, { name: 'Gekapert', options: [] });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'poll.forbidden' });
    }
    t.clock.advance(3600);
    const started = await t.call('PATCH', `/api/polls/${id}`, author, { name: 'Zu spät' });
    expect(started.statusCode).toBe(403);
    expect(started.json()).toMatchObject({ code: 'poll.started' });
    expect(await snapshot(id)).toEqual(before);
  });

  it('answers 404 for unknown polls before looking at the body, 400 for bad ids, 401 logged out', async () => {
    expect((await t.call('PATCH', '/api/polls/424242', author, { name: '' })).statusCode).toBe(404);
    expect((await t.call('PATCH', `/api/polls/${'9'.repeat(30)}`, author, {})).statusCode).toBe(404);
    for (const bad of ['0', '-1', 'abc', '1.5', '1e2']) {
      expect((await t.call('PATCH', `/api/polls/${bad}`, author, { name: 'x' })).statusCode, bad).toBe(400);
    }
    expect((await t.call('PATCH', '/api/polls/1', null, { name: 'x' })).statusCode).toBe(401);
  });
});
