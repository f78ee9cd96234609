/**
 * Uploads (SPEC-API `POST /api/uploads`, `GET /api/uploads/{uuid}`): strict
 * base64, at most `MAX_UPLOAD_BYTES` decoded, type from the content, images
 * without metadata, stored in the database so that every instance serves it.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { ifNoneMatchMatches } from '../../http/conditional.ts';
import { withoutRefusedNameCharacters } from '../../text/control-characters.ts';
import type { Actor } from '../actor.ts';
import { ValidationFailed } from '../plugin/problem.ts';
import type { ImageWorkQueue } from './image-work-queue.ts';
import { uploadProblems } from './uploads.problems.ts';
import { cleanContent, MAX_IMAGE_SIDE, UnusableImage, type RunImageWork } from './upload-content.ts';
import { assertUploadRate, storeWithinUploadRate } from './upload-rate.ts';
import { findUpload, hasUpload, insertUpload, type StoredUpload } from './uploads.repository.ts';

export const UPLOAD_URL_PREFIX = '/api/uploads/';

export interface UploadInfo { url: string; uuid: string; filename: string; mimeType: string; filesize: number }

/**
 * RFC 4648 §4 base64, canonical: padded, no whitespace, no URL alphabet, no
 * `data:` prefix, zero pad bits (§3.5). Linear: no backtracking regex over megabytes.
 */
export function decodeStrictBase64(text: string): Buffer | null {
  if (text.length === 0 || text.length % 4 !== 0) return null;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (!/^[A-Za-z0-9+/]*$/.test(text.slice(0, text.length - padding))) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

/**
 * Stores an upload. Refused first, before any decoding: a user over the upload
 * rate (429); then bad input (400); images wait for room in `images` (503 when full).
 */
export async function storeUpload(
  db: Executor, clock: Clock, actor: Actor, input: { filename: string; body: string }, limits: { maxBytes: number; images: ImageWorkQueue },
): Promise<UploadInfo> {
  const { maxBytes } = limits;
  await assertUploadRate(db, actor.id, clock());
  const filename = cleanFilename(input.filename);
  if (filename === '') throw new ValidationFailed([{ field: 'body/filename', message: 'must name the file' }]);
  const bytes = decodeStrictBase64(input.body);
  if (bytes === null) {
    throw new ValidationFailed([{ field: 'body/body', message: 'must be the file content in base64 (RFC 4648, with padding)' }]);
  }
  if (bytes.length > maxBytes) {
    throw new ValidationFailed([{ field: 'body/body', message: `the file must not be larger than ${maxBytes} bytes` }]);
  }
  const clean = await cleanOrRefuse(filename, bytes, (work) => limits.images.run(actor.id, work));
  if (clean.content.length > maxBytes) {
    throw new ValidationFailed([{ field: 'body/body', message:
      `the image is still larger than ${maxBytes} bytes after re-encoding (at most ${MAX_IMAGE_SIDE}×${MAX_IMAGE_SIDE} pixels)` }]);
  }
  const upload: StoredUpload = {
    uuid: randomUUID(), userId: actor.id, filename, mimeType: clean.mimeType, filesize: clean.content.length, content: clean.content,
  };
  await storeWithinUploadRate(db, actor.id, clock, (trx, now) => insertUpload(trx, upload, now));
  return toUploadInfo(upload);
}

async function cleanOrRefuse(filename: string, bytes: Buffer, runImageWork: RunImageWork) {
  try {
    return await cleanContent(filename, bytes, runImageWork);
  } catch (error) {
    if (!(error instanceof UnusableImage)) throw error;
    throw new ValidationFailed([{ field: 'body/body', message: error.message }]);
  }
}

export async function getUpload(db: Executor, uuid: string): Promise<StoredUpload> {
  const upload = await findUpload(db, uuid.toLowerCase());
  if (!upload) throw uploadProblems.notFound();
  return upload;
}

/** Whether the client's copy named by `If-None-Match` is current; 404 for an unknown upload. */
export async function isUploadCurrent(db: Executor, uuid: string, ifNoneMatch: string | string[] | undefined): Promise<boolean> {
  if (ifNoneMatch === undefined) return false;
  if (!(await hasUpload(db, uuid.toLowerCase()))) throw uploadProblems.notFound();
  return ifNoneMatchMatches(ifNoneMatch, uploadEtag(uuid));
}

/** The ETag of an upload: its uuid, since the bytes of an upload never change. */
export function uploadEtag(uuid: string): string {
  return `"${uuid.toLowerCase()}"`;
}

export function toUploadInfo(upload: StoredUpload): UploadInfo {
  return { url: `${UPLOAD_URL_PREFIX}${upload.uuid}`, uuid: upload.uuid, filename: upload.filename, mimeType: upload.mimeType, filesize: upload.filesize };
}

/** At most this many characters (code points: an emoji is never cut in half). */
export const MAX_FILENAME_LENGTH = 255;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The last path segment, without control characters and bidirectional
 * overrides ("invoice\u202Egpj.exe" would show as "invoiceexe.jpg";
 * text/control-characters.ts), as UTF-8 can hold it (a lone surrogate becomes
 * U+FFFD, as the database would store it), so that the answer, the stored row
 * and the served Content-Disposition all carry the same name. The name is only
 * ever shown, never used as a path.
 */
export function cleanFilename(raw: string): string {
  const base = withoutRefusedNameCharacters(raw).replace(LONE_SURROGATE, '\uFFFD').split(/[/\\]/).pop() ?? '';
  return Array.from(base.trim()).slice(0, MAX_FILENAME_LENGTH).join('').trimEnd();
}
