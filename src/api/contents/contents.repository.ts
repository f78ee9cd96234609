/** SQL for content entries. */
import type { Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ContentsTable } from './contents.tables.ts';

export type ContentRow = Selectable<ContentsTable>;

export function findContent(db: Executor, id: number): Promise<ContentRow | undefined> {
  return db.selectFrom('contents').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertContent(db: Executor, content: { name: string; title: string; body: string; lastModified: Date }): Promise<number> {
  const row = await db.insertInto('contents')
    .values({ name: content.name, title: content.title, body: content.body, last_modified: content.lastModified })
    .returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export function updateContent(db: Executor, id: number, changes: Updateable<ContentsTable>): Promise<ContentRow | undefined> {
  return db.updateTable('contents').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteContent(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('contents').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
