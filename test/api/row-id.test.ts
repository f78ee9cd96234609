/**
 * SPEC-API: an id that matches its pattern but names nothing is 404, in
 * every area and whatever its length (up to the router's 200-character
 * guard) — never 400 for being long, never 500 for exceeding `integer`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { expectProblem } from '../helpers/api.ts';
import { makeStore } from '../helpers/api-factories.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import type { TestSession } from '../helpers/session.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const t = useTestApp();
let orga: TestSession;
let orgaId: number;
let storeId: number;

beforeAll(async () => {
  const user = await makeUser(t.db, { role: 'orga' });
  orgaId = user.id;
  orga = await t.logIn(user);
  storeId = await makeStore(t.db, await makeRegion(t.db));
});

/** [method, url with `{id}`, body, expected status, expected code]. */
const ROUTES = (): Array<[Method, string, unknown, number, string]> => [
  ['GET', '/api/stores/{id}/posts', undefined, 404, 'store.not-found'],
  ['DELETE', `/api/stores/${storeId}/posts/{id}`, undefined, 404, 'store.post-not-found'],
  ['POST', `/api/stores/{id}/pickups/2030-01-01T10:00:00Z/${orgaId}`, undefined, 404, 'store.not-found'],
  ['POST', `/api/stores/${storeId}/pickups/2030-01-01T10:00:00Z/{id}`, undefined, 404, 'store.pickup-slot-not-found'],
  ['POST', `/api/stores/{id}/managers/${orgaId}`, undefined, 404, 'store.not-found'],
  // The seed's 422 for an unknown user to appoint.
  ['POST', `/api/stores/${storeId}/managers/{id}`, undefined, 422, 'store.user-not-found'],
  ['GET', '/api/quiz/sessions/{id}', undefined, 404, 'quiz.user-not-found'],
  ['DELETE', '/api/quiz/session/{id}', undefined, 404, 'quiz.session-not-found'],
  ['DELETE', '/api/report/{id}', undefined, 404, 'report.not-found'],
  ['GET', '/api/region/{id}/pin', undefined, 404, 'region.not-found'],
  ['POST', '/api/region/{id}/pin', { lat: 1, lon: 2, description: '', status: 1 }, 404, 'region.not-found'],
  ['GET', '/api/regions/{id}/forum/subscriptions', undefined, 404, 'region.not-found'],
  ['PUT', '/api/regions/{id}/forum/subscriptions?isFollowing=true', undefined, 404, 'region.not-found'],
  ['GET', '/api/contents/{id}', undefined, 404, 'content.not-found'],
  ['DELETE', '/api/contents/{id}', undefined, 404, 'content.not-found'],
  ['PATCH', '/api/content/{id}', { body: 'x' }, 404, 'content.not-found'],
  ['GET', '/api/baskets/{id}', undefined, 404, 'basket.not-found'],
  ['PATCH', '/api/baskets/{id}', { description: 'x' }, 404, 'basket.not-found'],
  ['POST', '/api/baskets/{id}/request', undefined, 404, 'basket.not-found'],
  ['POST', '/api/baskets/{id}/withdraw', undefined, 404, 'basket.not-found'],
  ['GET', '/api/polls/{id}', undefined, 404, 'poll.not-found'],
  ['PATCH', '/api/polls/{id}', { name: 'x' }, 404, 'poll.not-found'],
];

/** The problems whose detail names the missing thing's id. */
const NAMES_THE_ID = new Set(['store.not-found', 'store.post-not-found', 'store.user-not-found', 'quiz.user-not-found',
  'quiz.session-not-found', 'report.not-found', 'region.not-found', 'content.not-found']);

describe('pattern-valid ids that name nothing', () => {
  it.each(['2147483648', '99999999999', '9'.repeat(40), '1'.repeat(200)])('answer 404 everywhere for %s', async (id) => {
    for (const [method, url, body, status, code] of ROUTES()) {
      const response = await t.call(method, url.replace('{id}', id), orga, body);
      expectProblem(response, status, code);
      if (NAMES_THE_ID.has(code)) expect(response.json().detail, `${method} ${url}`).toContain(` ${id}`);
    }
  });

  it('name the id as sent, not the row id it could not become', async () => {
    const response = await t.call('DELETE', '/api/quiz/session/99999999999999999999999', orga);
    expectProblem(response, 404, 'quiz.session-not-found');
    expect(response.json().detail).toBe('There is no quiz session 99999999999999999999999.');
    const post = await t.call('DELETE', `/api/stores/${storeId}/posts/2147483648`, orga);
    expect(post.json().detail).toBe(`Store ${storeId} has no wall post 2147483648.`);
  });

  it('answer 400 only beyond 200 characters, naming the parameter, after the login and CSRF checks (SPEC-API\'s order)', async () => {
    for (const [method, url, body] of ROUTES()) {
      const target = url.replace('{id}', '1'.repeat(201));
      const response = await t.call(method, target, orga, body);
      expectProblem(response, 400, 'request.invalid');
      expect(response.json().errors, `${method} ${url}`).toEqual([{ field: expect.stringMatching(/^params\//), message: 'must NOT have more than 200 characters' }]);
      // Logged out, and with a forged CSRF token: answered as a parameter breaking its pattern is (401 and 403 first).
      const asPatternBreak = async (session: typeof orga | null, headers?: Record<string, string>) => [
        (await t.call(method, target, session, body, headers)).statusCode, (await t.call(method, url.replace('{id}', 'abc'), session, body, headers)).statusCode,
      ];
      const [loggedOut, loggedOutAbc] = await asPatternBreak(null);
      expect(loggedOut, `${method} ${url} logged out`).toBe(loggedOutAbc);
      if (method !== 'GET') {
        const [forged, forgedAbc] = await asPatternBreak(orga, { 'x-csrf-token': 'wrong' });
        expect([forged, forgedAbc], `${method} ${url} forged`).toEqual([403, 403]);
      }
    }
  });

  it('beyond the router\'s 2,048 characters: 400 before anything else', async () => {
    for (const [method, url, body] of ROUTES()) {
      const response = await t.call(method, url.replace('{id}', '1'.repeat(2049)), null, body);
      expectProblem(response, 400, 'request.invalid');
      expect(response.json().detail, `${method} ${url}`).toBe('A path parameter is too long.');
    }
  });
});
