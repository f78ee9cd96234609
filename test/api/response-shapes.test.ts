/**
 * Every object the community operations return has
 * exactly the seed's fields (SPEC-API adds the wall post, the content entry
 * and {isConfirmed}, {isFollowing} where the seed shows none), on the demo data.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData, type DemoSummary } from '../../src/demo/demo-data.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { expectKeys } from '../helpers/api.ts';
import type { TestSession } from '../helpers/session.ts';

/** Field lists as the seed's "Resources and their fields" and SPEC-API give them. */
const SEED = {
  quizOverviewEntry: ['quiz', 'sessions'],
  quiz: ['id', 'name', 'description', 'isDescriptionHtmlEncoded', 'maxFailurePointsToSucceed', 'questionCountTimed', 'questionCountUntimed'],
  quizSession: ['id', 'foodsaverId', 'quizId', 'status', 'questionsAnswered', 'startTime', 'endTime', 'failurePoints',
    'maxFailurePointsToSucceed', 'isTimed', 'isTest'],
  regionPin: ['lat', 'lon', 'description', 'status'],
  contentCreated: ['id'],
  contentEntry: ['id', 'name', 'title', 'body', 'lastModified'],
  wallPost: ['id', 'foodsaverId', 'text', 'author', 'createdAt'],
  wallPostAuthor: ['id', 'name', 'avatar', 'sleepStatus'],
  pickupSignup: ['isConfirmed'],
  forumSubscription: ['isFollowing'],
};
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const t = useTestApp();
let demo: DemoSummary;
let orga: TestSession;
let foodsaver: TestSession;

beforeAll(async () => {
  demo = await loadDemoData(t.db);
  orga = await t.logIn({ email: 'orga@example.org', password: DEMO_PASSWORD });
  foodsaver = await t.logIn({ email: 'foodsaver@example.org', password: DEMO_PASSWORD });
});

describe('response shapes of the community operations', () => {
  it('quiz overview entries carry the full quiz and session objects, with RFC 3339 times and null for a running session\'s end', async () => {
    const fs = demo.users.find((u) => u.email === 'foodsaver@example.org')!;
    const entries = (await t.call('GET', `/api/quiz/sessions/${fs.id}`, orga)).json() as Array<Record<string, any>>;
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expectKeys(entry, SEED.quizOverviewEntry);
      expectKeys(entry.quiz, SEED.quiz);
      for (const session of entry.sessions) {
        expectKeys(session, SEED.quizSession);
        expect(session.startTime).toMatch(RFC3339);
        if (session.status === 0) expect(session.endTime).toBeNull();
        else expect(session.endTime).toMatch(RFC3339);
      }
    }
  });

  it('wall posts, region pin, content entries, pickup sign-up and forum subscription', async () => {
    const store = demo.community.stores[0]!;
    const posts = (await t.call('GET', `/api/stores/${store.id}/posts`, foodsaver)).json() as Array<Record<string, any>>;
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) {
      expectKeys(post, SEED.wallPost);
      expectKeys(post.author, SEED.wallPostAuthor);
      expect(post.createdAt).toMatch(RFC3339);
    }
    const pin = demo.community.regionPins[0]!;
    expectKeys((await t.call('GET', `/api/region/${pin.regionId}/pin`, foodsaver)).json(), SEED.regionPin);
    const created = (await t.call('POST', '/api/contents', orga, { name: 'n', title: 't', body: 'b' })).json() as { id: number };
    expectKeys(created, SEED.contentCreated);
    const entry = (await t.call('PATCH', `/api/content/${created.id}`, orga, { body: 'c' })).json() as { lastModified: string };
    expectKeys(entry, SEED.contentEntry);
    expect(entry.lastModified).toMatch(RFC3339);
    expectKeys((await t.call('GET', `/api/contents/${created.id}`)).json(), SEED.contentEntry);
    const fs = demo.users.find((u) => u.email === 'foodsaver@example.org')!;
    const free = store.pickups.filter((p) => Date.parse(p.at) > Date.now() && p.signedUp.length < p.capacity).at(-1)!;
    expectKeys((await t.call('POST', `/api/stores/${store.id}/pickups/${free.at}/${fs.id}`, foodsaver)).json(), SEED.pickupSignup);
    expectKeys((await t.call('GET', `/api/regions/${store.regionId}/forum/subscriptions`, foodsaver)).json(), SEED.forumSubscription);
  });
});

describe('the demo\'s answers and the OpenAPI document', () => {
  it('every answer validates against the schema the document declares for it, integer codes within their enums', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
      components: object;
    };
    // The answers' schemas refer to the document's named ones (`#/components/schemas/…`): compiled with them at their root.
    const compile = (schema: object) => ajv.compile({ ...schema, components: doc.components });
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const fs = demo.users.find((u) => u.email === 'foodsaver@example.org')!;
    const store = demo.community.stores[0]!;
    const pin = demo.community.regionPins[0]!;
    const basket = demo.sharing.baskets[0]!;
    const poll = demo.sharing.polls.find((p) => p.hasStarted)!;
    const answers: Array<[string, string, TestSession]> = [
      ['/api/quiz/sessions/{foodsaverId}', `/api/quiz/sessions/${fs.id}`, orga],
      ['/api/stores/{storeId}/posts', `/api/stores/${store.id}/posts`, foodsaver],
      ['/api/region/{regionId}/pin', `/api/region/${pin.regionId}/pin`, foodsaver],
      ['/api/baskets/{basketId}', `/api/baskets/${basket.id}`, foodsaver],
      ['/api/polls/{pollId}', `/api/polls/${poll.id}`, orga],
      ['/api/user/current', '/api/user/current', foodsaver],
      ['/api/feature-toggles', '/api/feature-toggles', foodsaver],
    ];
    for (const [path, url, session] of answers) {
      const response = await t.call('GET', url, session);
      expect(response.statusCode, url).toBe(200);
      const validate = compile(doc.paths[path]!.get!.responses['200']!.content!['application/json']!.schema);
      expect(validate(response.json()) ? [] : validate.errors, url).toEqual([]);
    }
    // The enums say something: a value outside one fails.
    const quizSessions = doc.paths['/api/quiz/sessions/{foodsaverId}']!.get!.responses['200']!.content!['application/json']!.schema;
    const entries = (await t.call('GET', `/api/quiz/sessions/${fs.id}`, orga)).json() as Array<{ sessions: Array<{ status: number }> }>;
    entries.find((entry) => entry.sessions.length > 0)!.sessions[0]!.status = 3;
    expect(compile(quizSessions)(entries)).toBe(false);
  });
});
