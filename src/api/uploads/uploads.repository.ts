import type { Executor } from '../../db/executor.ts';

export interface StoredUpload {
  uuid: string;
  userId: number | null;
  filename: string;
  mimeType: string;
  filesize: number;
  content: Buffer;
}

export async function insertUpload(db: Executor, upload: StoredUpload, now: Date): Promise<void> {
  await db.insertInto('uploads').values({
    uuid: upload.uuid,
    user_id: upload.userId,
    filename: upload.filename,
    mime_type: upload.mimeType,
    filesize: upload.filesize,
    content: upload.content,
    created_at: now,
  }).execute();
}

export async function findUpload(db: Executor, uuid: string): Promise<StoredUpload | undefined> {
  const row = await db.selectFrom('uploads').selectAll().where('uuid', '=', uuid).executeTakeFirst();
  return row && {
    uuid: row.uuid, userId: row.user_id, filename: row.filename, mimeType: row.mime_type,
    filesize: row.filesize, content: Buffer.from(row.content),
  };
}

/** Whether an upload exists, without reading its bytes (a conditional GET needs no more). */
export async function hasUpload(db: Executor, uuid: string): Promise<boolean> {
  return (await db.selectFrom('uploads').select('uuid').where('uuid', '=', uuid).executeTakeFirst()) !== undefined;
}

/** The media type of each upload among `uuids` that `userId` made (others are absent). */
export async function findOwnUploadTypes(db: Executor, userId: number, uuids: readonly string[]): Promise<Map<string, string>> {
  if (uuids.length === 0) return new Map();
  const rows = await db.selectFrom('uploads').select(['uuid', 'mime_type'])
    .where('user_id', '=', userId).where('uuid', 'in', [...uuids]).execute();
  return new Map(rows.map((r) => [r.uuid, r.mime_type]));
}

/** How many uploads `userId` made since `since`, and when the oldest of them was made. */
export async function countUploadsSince(db: Executor, userId: number, since: Date): Promise<{ count: number; oldest: Date | null }> {
  const row = await db.selectFrom('uploads')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min<Date | null>('created_at').as('oldest')])
    .where('user_id', '=', userId).where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : new Date(row.oldest) };
}
