/** Factories for the `/api` areas' test data (stores, quizzes, reports, contents), through the repositories. */
import type { DB } from '../../src/db/database.ts';
import { insertContent } from '../../src/api/contents/contents.repository.ts';
import { insertQuiz, insertQuizSession } from '../../src/api/quiz/quiz.repository.ts';
import { insertReport } from '../../src/api/reports/reports.repository.ts';
import { insertPickupSlot } from '../../src/api/stores/stores.pickups.repository.ts';
import { insertStore, setTeamRole } from '../../src/api/stores/stores.repository.ts';
import type { StoreTeamRole } from '../../src/api/stores/stores.tables.ts';
import { insertWallPost } from '../../src/api/stores/stores.wall.repository.ts';

export async function makeStore(db: DB, regionId: number, team: Partial<Record<StoreTeamRole, number[]>> = {}): Promise<number> {
  const storeId = await insertStore(db, { name: 'Bio-Laden', regionId, address: 'Hauptstr. 1' });
  for (const role of ['member', 'standby', 'manager'] as const) {
    for (const userId of team[role] ?? []) await setTeamRole(db, storeId, userId, role, new Date());
  }
  return storeId;
}

export function makeWallPost(db: DB, storeId: number, authorId: number, createdAt: Date, text = 'Hallo Team'): Promise<number> {
  return insertWallPost(db, { storeId, authorId, text, createdAt });
}

export function makePickupSlot(db: DB, storeId: number, at: Date, capacity = 2): Promise<number> {
  return insertPickupSlot(db, { storeId, at, capacity });
}

export function makeQuiz(db: DB, name = 'Foodsaver-Quiz'): Promise<number> {
  return insertQuiz(db, {
    name, description: `<p>${name}</p>`, is_description_html_encoded: true,
    max_failure_points: 3, question_count_timed: 10, question_count_untimed: 20,
  });
}

export function makeQuizSession(db: DB, quizId: number, userId: number, status: 0 | 1 | 2, startTime: Date): Promise<number> {
  return insertQuizSession(db, {
    foodsaver_id: userId, quiz_id: quizId, status, questions_answered: status === 0 ? 3 : 10,
    start_time: startTime, end_time: status === 0 ? null : new Date(startTime.getTime() + 600_000),
    failure_points: status === 2 ? 5 : 1, max_failure_points: 3, is_timed: true, is_test: false,
  });
}

export function makeReport(db: DB, reporterId: number, reportedId: number): Promise<number> {
  return insertReport(db, { reporterId, reportedId, reason: 'unpünktlich', message: 'kam zu spät', createdAt: new Date() });
}

export function makeContent(db: DB, name = 'impressum'): Promise<number> {
  return insertContent(db, { name, title: 'Impressum', body: '<p>Text</p>', lastModified: new Date('2026-01-01T00:00:00Z') });
}
