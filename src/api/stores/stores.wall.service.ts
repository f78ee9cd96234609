/** Store wall posts: read the newest, delete one (SPEC-API). */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { toRfc3339 } from '../params.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { findStoreOrThrow, relationToStore } from './stores.access.ts';
import { mayDeleteWallPost, mayViewWall } from './stores.policy.ts';
import { storeProblems } from './stores.problems.ts';
import { insertStoreLog } from './stores.repository.ts';
import type { WallPost } from './stores.schemas.ts';
import { deleteWallPost, findWallPost, listNewestWallPosts, type WallPostWithAuthor } from './stores.wall.repository.ts';

export const WALL_POST_PAGE_SIZE = 50;

/** The 50 newest posts of the store's wall, newest first. */
/** 404 → 403 → `checkInput()` (the query). */
export async function listWallPosts(db: DB, actor: Actor, storeId: PathId, checkInput: () => void): Promise<WallPost[]> {
  const store = await findStoreOrThrow(db, storeId);
  if (!mayViewWall(actor, await relationToStore(db, store, actor))) {
    throw storeProblems.mayNotViewWall();
  }
  checkInput();
  const rows = await listNewestWallPosts(db, store.id, WALL_POST_PAGE_SIZE);
  return rows.map(toWallPost);
}

/** Deletes a wall post and records it in the store log, in one transaction; `checkInput()` (the query) after 404 and 403. */
export async function removeWallPost(db: DB, clock: Clock, actor: Actor, storeId: PathId, postId: PathId, checkInput: () => void): Promise<void> {
  const store = await findStoreOrThrow(db, storeId);
  const post = await findWallPost(db, postId.row);
  if (!post || post.store_id !== store.id) {
    throw storeProblems.postNotFound(store.id, postId.sent);
  }
  const now = clock();
  const relation = await relationToStore(db, store, actor);
  if (!mayDeleteWallPost(actor, relation, { authorId: post.author_id, createdAt: post.created_at }, now)) {
    throw storeProblems.mayNotRemovePost();
  }
  checkInput();
  await db.transaction().execute(async (trx) => {
    if (!(await deleteWallPost(trx, post.id))) {
      throw storeProblems.postNotFound(store.id, postId.sent);
    }
    await insertStoreLog(trx, {
      storeId: store.id,
      action: 'wall-post-deleted',
      actingUserId: actor.id,
      affectedUserId: post.author_id,
      dateReference: post.created_at,
      content: post.text,
      createdAt: now,
    });
  });
}

function toWallPost(row: WallPostWithAuthor): WallPost {
  return {
    id: row.id,
    foodsaverId: row.author_id,
    text: row.text,
    author: {
      id: row.author_id,
      name: row.author_first_name,
      avatar: row.author_photo,
      sleepStatus: row.author_sleeping ? 1 : 0,
    },
    createdAt: toRfc3339(row.created_at),
  };
}
