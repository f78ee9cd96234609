/**
 * Field rules of a basket beyond its schema (SPEC-API `PATCH /api/baskets`):
 * checked on the basket as it would be after the change.
 */
import type { Executor } from '../../db/executor.ts';
import type { FieldError } from '../plugin/problem.ts';
import { findOwnUploadTypes } from '../uploads/uploads.repository.ts';
import type { BasketFields } from './baskets.repository.ts';

const PHONE = /^\+?[0-9\-/ ]+$/;
/**
 * What POST /api/uploads answers as `url`; its uuid in either case (RFC 9562 §4: case-insensitive on input),
 * as GET /api/uploads/{uuid} takes it. The path itself is case-sensitive, as the router is.
 */
const UPLOAD_URL = /^\/api\/uploads\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

/** The pictures as stored and answered: an upload's URL with its uuid in lower case, as the upload's own answer gives it. */
export function canonicalPictures(pictures: readonly string[]): string[] {
  return pictures.map((url) => {
    const uuid = UPLOAD_URL.exec(url)?.[1];
    return uuid === undefined ? url : `/api/uploads/${uuid.toLowerCase()}`;
  });
}
export const CONTACT_BY_PHONE = 2;

/** Empty strings mean "no number". */
export function normalisePhone(value: string | null | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

export async function checkBasketFields(db: Executor, userId: number, fields: BasketFields): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  if (fields.description.trim() === '') errors.push({ field: 'body/description', message: 'must not be empty' });
  for (const name of ['mobile', 'telephone'] as const) {
    const value = fields[name];
    if (value !== null && !PHONE.test(value)) {
      errors.push({ field: `body/${name}`, message: 'may contain only digits, spaces, - and /, and a leading +' });
    }
  }
  if (fields.contactTypes.includes(CONTACT_BY_PHONE) && fields.mobile === null) {
    errors.push({ field: 'body/mobile', message: 'is required when contact by phone (2) is offered' });
  }
  errors.push(...await checkPictures(db, userId, fields.pictures));
  return errors;
}

/** Each picture must be the URL of an image the caller uploaded (a PDF of theirs is no picture). */
async function checkPictures(db: Executor, userId: number, pictures: readonly string[]): Promise<FieldError[]> {
  const uuids = pictures.map((url) => UPLOAD_URL.exec(url)?.[1]?.toLowerCase());
  const own = await findOwnUploadTypes(db, userId, uuids.filter((u): u is string => u !== undefined));
  return uuids.flatMap((uuid, index): FieldError[] => {
    const mimeType = uuid === undefined ? undefined : own.get(uuid);
    const field = `body/pictures/${index}`;
    if (mimeType === undefined) return [{ field, message: 'must be the URL of one of your own uploads (/api/uploads/<uuid>)' }];
    if (!mimeType.startsWith('image/')) return [{ field, message: `must be an image upload, not ${mimeType}` }];
    return [];
  });
}
