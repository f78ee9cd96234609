/** The demo loader's summary, kept beside the dataset (migration 042) for `demo` on a loaded database. */
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';

export async function saveDemoSummary(db: Executor, summary: unknown): Promise<void> {
  await sql`insert into demo_summary (summary) values (${JSON.stringify(summary)}::jsonb)
    on conflict (singleton) do update set summary = excluded.summary, loaded_at = now()`.execute(db);
}

/** The summary as JSON (dates as ISO strings), or undefined when the demo was never loaded here. */
export async function findDemoSummary<T>(db: Executor): Promise<T | undefined> {
  const { rows } = await sql<{ summary: T }>`select summary from demo_summary`.execute(db);
  return rows[0]?.summary;
}
