/** SQL for store wall posts. */
import type { Executor } from '../../db/executor.ts';

export interface WallPostRow {
  id: number;
  store_id: number;
  author_id: number;
  text: string;
  created_at: Date;
}

export interface WallPostWithAuthor extends WallPostRow {
  author_first_name: string;
  author_photo: string | null;
  author_sleeping: boolean;
}

export function listNewestWallPosts(db: Executor, storeId: number, limit: number): Promise<WallPostWithAuthor[]> {
  return db.selectFrom('store_wall_posts as p')
    .innerJoin('users as u', 'u.id', 'p.author_id')
    .select([
      'p.id', 'p.store_id', 'p.author_id', 'p.text', 'p.created_at',
      'u.first_name as author_first_name', 'u.photo as author_photo', 'u.sleeping as author_sleeping',
    ])
    .where('p.store_id', '=', storeId)
    .orderBy('p.created_at', 'desc').orderBy('p.id', 'desc')
    .limit(limit)
    .execute();
}

export function findWallPost(db: Executor, id: number): Promise<WallPostRow | undefined> {
  return db.selectFrom('store_wall_posts').select(['id', 'store_id', 'author_id', 'text', 'created_at'])
    .where('id', '=', id).executeTakeFirst();
}

/** Deletes the post; false when a concurrent request deleted it first. */
export async function deleteWallPost(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('store_wall_posts').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertWallPost(db: Executor, post: { storeId: number; authorId: number; text: string; createdAt: Date }): Promise<number> {
  const row = await db.insertInto('store_wall_posts')
    .values({ store_id: post.storeId, author_id: post.authorId, text: post.text, created_at: post.createdAt })
    .returning('id').executeTakeFirstOrThrow();
  return row.id;
}
