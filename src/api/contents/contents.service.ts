/** Content entries (SPEC-API: POST/DELETE /api/contents, PATCH /api/content, GET /api/contents). */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ValidationFailed, type FieldError } from '../plugin/problem.ts';
import { toRfc3339 } from '../params.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { mayEditContents } from './contents.policy.ts';
import { contentProblems } from './contents.problems.ts';
import { deleteContent, findContent, insertContent, updateContent, type ContentRow } from './contents.repository.ts';
import type { ContentEntry, CreateContentInput, UpdateContentInput } from './contents.schemas.ts';

/** Whole tags, then a trailing unclosed one (`<script`), so no markup survives in plain-text fields. */
export function stripTags(value: string): string {
  return value.replace(/<[^>]*>/g, '').replace(/<[a-zA-Z/!?][^>]*$/, '').trim();
}

/** `checkInput` throws the query's validation error, deferred until after the 404 (SPEC-API order). */
export async function readContent(db: DB, contentId: PathId, checkInput: () => void): Promise<ContentEntry> {
  const row = await findContentOrThrow(db, contentId);
  checkInput();
  return toContentEntry(row);
}

/**
 * `checkInput` throws the body/query validation error, deferred until after the 404 and 403 checks (SPEC-API
 * order), together with the errors of the fields' own rules (a name that is empty once its tags are gone).
 */
export async function createContent(
  db: DB, clock: Clock, actor: Actor, input: CreateContentInput, checkInput: (ruleErrors: readonly FieldError[]) => void,
): Promise<{ id: number }> {
  checkMayEdit(actor);
  const { fields, errors } = cleanFields(input);
  checkInput(errors);
  const id = await insertContent(db, { ...(fields as Required<UpdateContentInput>), lastModified: clock() });
  return { id };
}

export async function changeContent(
  db: DB, clock: Clock, actor: Actor, contentId: PathId, input: UpdateContentInput, checkInput: (ruleErrors: readonly FieldError[]) => void,
): Promise<ContentEntry> {
  await findContentOrThrow(db, contentId);
  checkMayEdit(actor);
  const { fields, errors } = cleanFields(input);
  checkInput(errors);
  // The schema's minProperties counts unknown fields before they are dropped: `{"id": 7}` arrives as `{}`.
  if (input.name === undefined && input.title === undefined && input.body === undefined) {
    throw new ValidationFailed([{ field: 'body', message: 'must contain at least one of name, title, body' }]);
  }
  const row = await updateContent(db, contentId.row, { ...fields, last_modified: clock() });
  if (!row) throw contentProblems.notFound(contentId.sent);
  return toContentEntry(row);
}

export async function removeContent(db: DB, actor: Actor, contentId: PathId, checkInput: () => void): Promise<void> {
  await findContentOrThrow(db, contentId);
  checkMayEdit(actor);
  checkInput();
  if (!(await deleteContent(db, contentId.row))) throw contentProblems.notFound(contentId.sent);
}

/**
 * Strips tags from name and title; each given field must still be non-empty. Called before the
 * schema's verdict is reported, so it looks only at fields that are strings (a body that failed to
 * parse arrives as undefined).
 */
function cleanFields(input: UpdateContentInput | undefined): { fields: UpdateContentInput; errors: FieldError[] } {
  const given = (field: 'name' | 'title' | 'body') => (typeof input?.[field] === 'string' ? input[field] : undefined);
  const fields: UpdateContentInput = {};
  const name = given('name');
  const title = given('title');
  const body = given('body');
  if (name !== undefined) fields.name = stripTags(name);
  if (title !== undefined) fields.title = stripTags(title);
  if (body !== undefined) fields.body = body;
  const errors: FieldError[] = [];
  for (const field of ['name', 'title', 'body'] as const) {
    if (fields[field] !== undefined && fields[field].trim() === '') errors.push({ field: `body/${field}`, message: 'must not be empty' });
  }
  return { fields, errors };
}

function checkMayEdit(actor: Actor): void {
  if (!mayEditContents(actor)) throw contentProblems.notOrga();
}

async function findContentOrThrow(db: DB, contentId: PathId): Promise<ContentRow> {
  const row = await findContent(db, contentId.row);
  if (!row) throw contentProblems.notFound(contentId.sent);
  return row;
}

function toContentEntry(row: ContentRow): ContentEntry {
  return { id: row.id, name: row.name, title: row.title, body: row.body, lastModified: toRfc3339(row.last_modified) };
}
