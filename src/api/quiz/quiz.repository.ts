/** SQL for quizzes and quiz sessions. */
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { QuizSessionsTable, QuizzesTable } from './quiz.tables.ts';

export type QuizRow = Selectable<QuizzesTable>;
export type QuizSessionRow = Selectable<QuizSessionsTable>;

/** The user's sessions, running ones first, then the newest. */
export function listSessionsOfUser(db: Executor, userId: number): Promise<QuizSessionRow[]> {
  return db.selectFrom('quiz_sessions').selectAll()
    .where('foodsaver_id', '=', userId)
    .orderBy((eb) => eb.case().when('status', '=', 0).then(0).else(1).end())
    .orderBy('start_time', 'desc').orderBy('id', 'desc')
    .execute();
}

export function listQuizzesByIds(db: Executor, ids: readonly number[]): Promise<QuizRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('quizzes').selectAll().where('id', 'in', [...ids]).orderBy('id').execute();
}

export function findQuizSession(db: Executor, id: number): Promise<QuizSessionRow | undefined> {
  return db.selectFrom('quiz_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteQuizSession(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('quiz_sessions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertQuiz(db: Executor, quiz: Insertable<QuizzesTable>): Promise<number> {
  const row = await db.insertInto('quizzes').values(quiz).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function insertQuizSession(db: Executor, session: Insertable<QuizSessionsTable>): Promise<number> {
  const row = await db.insertInto('quiz_sessions').values(session).returning('id').executeTakeFirstOrThrow();
  return row.id;
}
