/**
 * Food baskets (SPEC-API): create, read, edit by the creator while active and
 * unexpired (an edit never moves `until`), request, and withdraw a request.
 */
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Actor } from '../actor.ts';
import { ValidationFailed, type FieldError } from '../plugin/problem.ts';
import {
  findBasket, findRequestStatus, insertBasket, OPEN_REQUEST_STATUSES, updateBasket, upsertRequest, withdrawOpenRequest,
  type BasketFields, type BasketRow,
} from './baskets.repository.ts';
import { isAvailable, isVisible, mayEditBasket } from './baskets.policy.ts';
import { basketProblems } from './baskets.problems.ts';
import { canonicalPictures, checkBasketFields, normalisePhone } from './baskets.rules.ts';
import { flattenContactTypes, type Basket, type BasketCreate, type BasketPatch } from './baskets.schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `checkInput` throws the query's validation error, deferred until after the 404 (SPEC-API order). */
export async function getBasket(db: Executor, basketId: number, checkInput: () => void): Promise<Basket> {
  const basket = await findVisibleBasket(db, basketId);
  checkInput();
  return toBasket(basket);
}

export async function createBasket(db: Executor, clock: Clock, actor: Pick<Actor, 'id'>, input: BasketCreate): Promise<Basket> {
  const contactTypes = contactTypesOf(input.contactTypes);
  const fields: BasketFields = {
    description: input.description.trim(),
    pictures: canonicalPictures(input.pictures ?? []),
    contactTypes: contactTypes.types,
    mobile: normalisePhone(input.mobile),
    telephone: normalisePhone(input.telephone),
    lat: input.lat,
    lon: input.lon,
    lifeTimeInDays: input.lifeTimeInDays,
    weightInGrams: input.weightInGrams ?? 0,
  };
  await assertValidFields(db, actor.id, fields, contactTypes.errors);
  const now = clock();
  const id = await insertBasket(db, actor.id, fields, now, new Date(now.getTime() + fields.lifeTimeInDays * DAY_MS));
  return toBasket((await findBasket(db, id))!);
}

/**
 * 404 unavailable → 403 not the creator → `checkInput()` (schema) → 400 field rules. A patch that
 * changes no field (`{}`, only read-only fields, the basket sent back as it is) writes nothing:
 * `updated` keeps its value.
 */
export async function editBasket(
  db: Executor, clock: Clock, actor: Pick<Actor, 'id'>, basketId: number, patch: BasketPatch, checkInput: () => void,
): Promise<Basket> {
  // The row stays locked from the read to the commit: edits sent at once each merge into the one before,
  // where each would otherwise write back the fields it read and undo the others'.
  const edited = await inTransaction(db, async (trx) => {
    const basket = await findAvailableBasket(trx, clock, basketId, true);
    if (!mayEditBasket(actor, basket)) throw basketProblems.notCreator();
    checkInput();
    const current = fieldsOf(basket);
    const { fields, errors } = patchedFields(current, patch);
    if (errors.length === 0 && JSON.stringify(fields) === JSON.stringify(current)) return basket;
    await assertValidFields(trx, actor.id, fields, errors);
    if (!(await updateBasket(trx, basket.id, fields, clock()))) throw basketProblems.notFound();
    return undefined;
  });
  return toBasket(edited ?? (await findBasket(db, basketId))!);
}

/** The basket's fields with the patch's over them; a contact type listed twice is an error (and counts once). */
function patchedFields(current: BasketFields, patch: BasketPatch): { fields: BasketFields; errors: FieldError[] } {
  const contactTypes = patch.contactTypes ? contactTypesOf(patch.contactTypes) : { types: current.contactTypes, errors: [] };
  return {
    fields: {
      description: patch.description?.trim() ?? current.description,
      pictures: patch.pictures ? canonicalPictures(patch.pictures) : current.pictures,
      contactTypes: contactTypes.types,
      mobile: patch.mobile === undefined ? current.mobile : normalisePhone(patch.mobile),
      telephone: patch.telephone === undefined ? current.telephone : normalisePhone(patch.telephone),
      lat: patch.lat ?? current.lat,
      lon: patch.lon ?? current.lon,
      lifeTimeInDays: patch.lifeTimeInDays ?? current.lifeTimeInDays,
      weightInGrams: patch.weightInGrams ?? current.weightInGrams,
    },
    errors: contactTypes.errors,
  };
}

function fieldsOf(row: BasketRow): BasketFields {
  return {
    description: row.description, pictures: row.pictures, contactTypes: row.contact_types, mobile: row.mobile,
    telephone: row.telephone, lat: row.lat, lon: row.lon, lifeTimeInDays: row.life_time_in_days, weightInGrams: row.weight_in_grams,
  };
}

/** 404 unavailable → `checkInput()` (the query) → 409 own basket, already requested. */
export async function requestBasket(
  db: Executor, clock: Clock, actor: Pick<Actor, 'id'>, basketId: number, checkInput: () => void,
): Promise<Basket> {
  const basket = await findAvailableBasket(db, clock, basketId);
  checkInput();
  if (basket.creator_id === actor.id) throw basketProblems.ownBasket();
  if (!(await upsertRequest(db, basket.id, actor.id, clock()))) {
    const status = await findRequestStatus(db, basket.id, actor.id);
    throw basketProblems.alreadyRequested(status);
  }
  return toBasket((await findBasket(db, basket.id))!);
}

/**
 * The caller's open request (status 0 or 1) becomes withdrawn (5). Both 404s (no such basket, no open
 * request) come before `checkInput()` (the query); the update itself still requires an open request.
 */
export async function withdrawRequest(
  db: Executor, clock: Clock, actor: Pick<Actor, 'id'>, basketId: number, checkInput: () => void,
): Promise<Basket> {
  const basket = await findAvailableBasket(db, clock, basketId);
  if (!isOpenRequest(await findRequestStatus(db, basket.id, actor.id))) throw basketProblems.noOpenRequest();
  checkInput();
  if (!(await withdrawOpenRequest(db, basket.id, actor.id, clock()))) {
    throw basketProblems.noOpenRequest();
  }
  return toBasket((await findBasket(db, basket.id))!);
}

function isOpenRequest(status: number | undefined): boolean {
  return (OPEN_REQUEST_STATUSES as readonly number[]).includes(status ?? -1);
}

async function findVisibleBasket(db: Executor, basketId: number, lock = false): Promise<BasketRow> {
  const basket = await findBasket(db, basketId, lock);
  if (!basket || !isVisible(basket)) throw basketProblems.notFound();
  return basket;
}

async function findAvailableBasket(db: Executor, clock: Clock, basketId: number, lock = false): Promise<BasketRow> {
  const basket = await findVisibleBasket(db, basketId, lock);
  if (!isAvailable(basket, clock())) throw basketProblems.notFound();
  return basket;
}

/** The contact types as integers; a type listed twice is an error, and counts once for the other rules. */
function contactTypesOf(raw: readonly (number | readonly number[])[]): { types: number[]; errors: FieldError[] } {
  const flat = flattenContactTypes(raw);
  if (flat) return { types: flat, errors: [] };
  return { types: [...new Set(raw.flat())], errors: [{ field: 'body/contactTypes', message: 'must not list a contact type twice' }] };
}

/** Every refused field in one answer (SPEC-API: one entry per offending field). */
async function assertValidFields(db: Executor, userId: number, fields: BasketFields, earlier: readonly FieldError[]): Promise<void> {
  const errors = [...earlier, ...await checkBasketFields(db, userId, fields)];
  if (errors.length > 0) throw new ValidationFailed(errors);
}

function toBasket(row: BasketRow): Basket {
  return {
    id: row.id,
    description: row.description,
    pictures: row.pictures,
    contactTypes: row.contact_types,
    mobile: row.mobile,
    telephone: row.telephone,
    lat: row.lat,
    lon: row.lon,
    lifeTimeInDays: row.life_time_in_days,
    weightInGrams: row.weight_in_grams,
    status: row.status,
    location: { lat: row.lat, lon: row.lon },
    creator: { id: row.creator_id, name: row.creator_first_name, avatar: row.creator_photo, isSleeping: row.creator_sleeping },
    created: row.created_at.toISOString(),
    updated: row.updated_at.toISOString(),
    until: row.until.toISOString(),
    requestCount: row.request_count,
  };
}
