import type { Generated } from 'kysely';

/** 0 running, 1 passed, 2 failed (SPEC-API "Domain codes"). */
export type QuizSessionStatus = 0 | 1 | 2;

export interface QuizzesTable {
  id: Generated<number>;
  name: string;
  description: string;
  is_description_html_encoded: boolean;
  max_failure_points: number;
  question_count_timed: number;
  question_count_untimed: number;
}

export interface QuizSessionsTable {
  id: Generated<number>;
  foodsaver_id: number;
  quiz_id: number;
  status: number;
  questions_answered: number;
  start_time: Date;
  end_time: Date | null;
  failure_points: number;
  max_failure_points: number;
  is_timed: boolean;
  is_test: boolean;
}

export interface QuizTables {
  quizzes: QuizzesTable;
  quiz_sessions: QuizSessionsTable;
}
