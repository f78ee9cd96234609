/** Quiz sessions of a user: the overview, and their removal by orga (SPEC-API). */
import { isOrga } from '../../accounts/roles.ts';
import { findUserById } from '../../accounts/users.repository.ts';
import type { DB } from '../../db/database.ts';
import { toRfc3339, toRfc3339OrNull } from '../params.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { deleteQuizSession, findQuizSession, listQuizzesByIds, listSessionsOfUser, type QuizRow, type QuizSessionRow } from './quiz.repository.ts';
import { quizProblems } from './quiz.problems.ts';
import type { QuizOverviewEntry } from './quiz.schemas.ts';

/** Orga, or the user themselves: 404 → 403 → `checkInput()` (the query). */
export async function listQuizOverview(db: DB, actor: Actor, user: PathId, checkInput: () => void): Promise<QuizOverviewEntry[]> {
  const userId = user.row;
  if (!(await findUserById(db, userId))) throw quizProblems.userNotFound(user.sent);
  if (actor.id !== userId && !isOrga(actor)) {
    throw quizProblems.othersSessions();
  }
  checkInput();
  const sessions = await listSessionsOfUser(db, userId);
  const quizzes = await listQuizzesByIds(db, [...new Set(sessions.map((s) => s.quiz_id))]);
  return quizzes.map((quiz) => ({
    quiz: toQuiz(quiz),
    sessions: sessions.filter((s) => s.quiz_id === quiz.id).map(toQuizSession),
  }));
}

export async function removeQuizSession(db: DB, actor: Actor, sessionId: PathId, checkInput: () => void): Promise<void> {
  if (!(await findQuizSession(db, sessionId.row))) throw quizProblems.sessionNotFound(sessionId.sent);
  if (!isOrga(actor)) throw quizProblems.notOrga();
  checkInput();
  if (!(await deleteQuizSession(db, sessionId.row))) throw quizProblems.sessionNotFound(sessionId.sent);
}

function toQuiz(row: QuizRow): QuizOverviewEntry['quiz'] {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    isDescriptionHtmlEncoded: row.is_description_html_encoded,
    maxFailurePointsToSucceed: row.max_failure_points,
    questionCountTimed: row.question_count_timed,
    questionCountUntimed: row.question_count_untimed,
  };
}

function toQuizSession(row: QuizSessionRow): QuizOverviewEntry['sessions'][number] {
  return {
    id: row.id,
    foodsaverId: row.foodsaver_id,
    quizId: row.quiz_id,
    status: row.status,
    questionsAnswered: row.questions_answered,
    startTime: toRfc3339(row.start_time),
    endTime: toRfc3339OrNull(row.end_time),
    failurePoints: row.failure_points,
    maxFailurePointsToSucceed: row.max_failure_points,
    isTimed: row.is_timed,
    isTest: row.is_test,
  };
}
