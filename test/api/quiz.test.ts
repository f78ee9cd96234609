/** Quiz overview and quiz session deletion (SPEC-API): status codes, who may see and delete, the seed's fields. */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { BAD_IDS, expectKeys, expectProblem } from '../helpers/api.ts';
import { makeQuiz, makeQuizSession } from '../helpers/api-factories.ts';
import type { TestUser } from '../helpers/factories.ts';

const t = useTestApp();
let foodsaver: TestUser;
let other: TestUser;
let orga: TestUser;
const s: Record<string, LoggedIn> = {};
const QUIZ_KEYS = ['id', 'name', 'description', 'isDescriptionHtmlEncoded', 'maxFailurePointsToSucceed', 'questionCountTimed', 'questionCountUntimed'];
const SESSION_KEYS = ['id', 'foodsaverId', 'quizId', 'status', 'questionsAnswered', 'startTime', 'endTime', 'failurePoints',
  'maxFailurePointsToSucceed', 'isTimed', 'isTest'];

beforeAll(async () => {
  s.foodsaver = await t.as('foodsaver');
  s.other = await t.as('store-manager');
  s.orga = await t.as('orga');
  [foodsaver, other, orga] = [s.foodsaver.user, s.other.user, s.orga.user];
});

const sessionExists = async (id: number) =>
  (await t.db.selectFrom('quiz_sessions').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

describe('GET /api/quiz/sessions/{foodsaverId}', () => {
  it('lists one entry per quiz, by quiz id, running sessions first then the newest, with every field of the seed', async () => {
    const storeQuiz = await makeQuiz(t.db, 'Betriebsverantwortlichen-Quiz');
    const foodsaverQuiz = await makeQuiz(t.db, 'Foodsaver-Quiz');
    await makeQuiz(t.db, 'Botschafter-Quiz');
    const day = 86_400_000;
    const now = t.clock.now().getTime();
    const failed = await makeQuizSession(t.db, storeQuiz, foodsaver.id, 2, new Date(now - 3 * day));
    const running = await makeQuizSession(t.db, storeQuiz, foodsaver.id, 0, new Date(now - 5 * day));
    const passed = await makeQuizSession(t.db, storeQuiz, foodsaver.id, 1, new Date(now - 1 * day));
    const own = await makeQuizSession(t.db, foodsaverQuiz, foodsaver.id, 1, new Date(now - 9 * day));
    await makeQuizSession(t.db, foodsaverQuiz, other.id, 2, new Date(now - day));
    for (const who of ['foodsaver', 'orga']) {
      const response = await t.call('GET', `/api/quiz/sessions/${foodsaver.id}`, s[who]);
      expect(response.statusCode, response.body).toBe(200);
      const entries = response.json() as Array<{ quiz: Record<string, unknown>; sessions: Array<Record<string, unknown>> }>;
      expect(entries.map((e) => e.quiz.id)).toEqual([storeQuiz, foodsaverQuiz]);
      expect(entries[0]!.sessions.map((x) => x.id)).toEqual([running, passed, failed]);
      expect(entries[1]!.sessions.map((x) => x.id)).toEqual([own]);
      for (const entry of entries) {
        expectKeys(entry, ['quiz', 'sessions']);
        expectKeys(entry.quiz, QUIZ_KEYS);
        for (const session of entry.sessions) expectKeys(session, SESSION_KEYS);
      }
      expect(entries[0]!.quiz).toEqual({
        id: storeQuiz, name: 'Betriebsverantwortlichen-Quiz', description: '<p>Betriebsverantwortlichen-Quiz</p>',
        isDescriptionHtmlEncoded: true, maxFailurePointsToSucceed: 3, questionCountTimed: 10, questionCountUntimed: 20,
      });
      expect(entries[0]!.sessions[0]).toEqual({
        id: running, foodsaverId: foodsaver.id, quizId: storeQuiz, status: 0, questionsAnswered: 3,
        startTime: new Date(now - 5 * day).toISOString(), endTime: null, failurePoints: 1, maxFailurePointsToSucceed: 3,
        isTimed: true, isTest: false,
      });
      expect(entries[0]!.sessions[2]).toMatchObject({ status: 2, endTime: new Date(now - 3 * day + 600_000).toISOString() });
    }
  });

  it('gives an empty list to a user without sessions', async () => {
    const response = await t.call('GET', `/api/quiz/sessions/${orga.id}`, s.orga);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('answers 401 logged out, 403 for another user\'s sessions unless orga, 404 for an unknown user', async () => {
    expectProblem(await t.call('GET', `/api/quiz/sessions/${foodsaver.id}`), 401, 'auth.unauthenticated');
    expectProblem(await t.call('GET', `/api/quiz/sessions/${foodsaver.id}`, s.other), 403, 'quiz.forbidden');
    expectProblem(await t.call('GET', '/api/quiz/sessions/999999', s.orga), 404, 'quiz.user-not-found');
    for (const bad of BAD_IDS) {
      const response = await t.call('GET', `/api/quiz/sessions/${bad}`, s.orga);
      expect([400, 404], `${bad}: ${response.body}`).toContain(response.statusCode);
    }
  });
});

describe('DELETE /api/quiz/session/{sessionId}', () => {
  it('lets orga delete a session', async () => {
    const quiz = await makeQuiz(t.db);
    const id = await makeQuizSession(t.db, quiz, foodsaver.id, 2, t.clock.now());
    const response = await t.call('DELETE', `/api/quiz/session/${id}`, s.orga);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await sessionExists(id)).toBe(false);
  });

  it('answers 401 logged out, 403 without CSRF token or to non-orga, 404 unknown, 400 for non-digits; deletes nothing', async () => {
    const quiz = await makeQuiz(t.db);
    const id = await makeQuizSession(t.db, quiz, foodsaver.id, 1, t.clock.now());
    expectProblem(await t.call('DELETE', `/api/quiz/session/${id}`), 401, 'auth.unauthenticated');
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/quiz/session/${id}`, headers: { cookie: s.orga!.cookie } }), 403, 'auth.csrf-invalid');
    expectProblem(await t.call('DELETE', `/api/quiz/session/${id}`, s.foodsaver), 403, 'quiz.forbidden');
    expectProblem(await t.call('DELETE', '/api/quiz/session/999999', s.orga), 404, 'quiz.session-not-found');
    // `\d+` admits 0 and leading zeros: valid, but no such session.
    expectProblem(await t.call('DELETE', '/api/quiz/session/0', s.orga), 404, 'quiz.session-not-found');
    for (const missing of ['9999999999', '123456789012345678901234567890']) {
      expectProblem(await t.call('DELETE', `/api/quiz/session/${missing}`, s.orga), 404, 'quiz.session-not-found');
    }
    for (const bad of ['abc', '-1', '1.5', '1e3', '%20', '1a', '%2e']) {
      expectProblem(await t.call('DELETE', `/api/quiz/session/${bad}`, s.orga), 400, 'request.invalid');
    }
    expect(await sessionExists(id)).toBe(true);
  });
});
