/**
 * Food baskets (SPEC-API): create, read, edit by the creator while active and
 * unexpired (an edit never moves `until`), request, and withdraw a request.
 */
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { ApiProblem, ValidationFailed } from '../plugin/problem.ts';
import { toRowId } from '../row-id.ts';
import {
  findBasket, findRequestStatus, insertBasket, updateBasket, upsertRequest, withdrawOpenRequest,
  type BasketFields, type BasketRow,
} from './baskets.repository.ts';
import { isAvailable, isVisible, mayEditBasket } from './baskets.policy.ts';
import { checkBasketFields, normalisePhone } from './baskets.rules.ts';
import { flattenContactTypes, type Basket, type BasketCreate, type BasketPatch } from './baskets.schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
interface Caller { id: number }

export async function getBasket(db: Executor, basketId: string): Promise<Basket> {
  const basket = await findVisibleBasket(db, basketId);
  return toBasket(basket);
}

export async function createBasket(db: Executor, clock: Clock, caller: Caller, input: BasketCreate): Promise<Basket> {
  const fields: BasketFields = {
    description: input.description.trim(),
    pictures: input.pictures ?? [],
    contactTypes: contactTypesOf(input.contactTypes),
    mobile: normalisePhone(input.mobile),
    telephone: normalisePhone(input.telephone),
    lat: input.lat,
    lon: input.lon,
    lifeTimeInDays: input.lifeTimeInDays,
    weightInGrams: input.weightInGrams ?? 0,
  };
  await assertValidFields(db, caller.id, fields);
  const now = clock();
  const id = await insertBasket(db, caller.id, fields, now, new Date(now.getTime() + fields.lifeTimeInDays * DAY_MS));
  return toBasket((await findBasket(db, id))!);
}

/**
 * 404 unavailable → 403 not the creator → `checkInput()` (schema) → 400 field rules. A patch that
 * changes no field (`{}`, only read-only fields, the basket sent back as it is) writes nothing:
 * `updated` keeps its value.
 */
export async function editBasket(
  db: Executor, clock: Clock, caller: Caller, basketId: string, patch: BasketPatch, checkInput: () => void,
): Promise<Basket> {
  const basket = await findAvailableBasket(db, clock, basketId);
  if (!mayEditBasket(caller, basket)) throw new ApiProblem(403, 'basket.forbidden', 'Only the creator may edit this basket.');
  checkInput();
  const current = fieldsOf(basket);
  const fields: BasketFields = {
    description: patch.description?.trim() ?? current.description,
    pictures: patch.pictures ?? current.pictures,
    contactTypes: patch.contactTypes ? contactTypesOf(patch.contactTypes) : current.contactTypes,
    mobile: patch.mobile === undefined ? current.mobile : normalisePhone(patch.mobile),
    telephone: patch.telephone === undefined ? current.telephone : normalisePhone(patch.telephone),
    lat: patch.lat ?? current.lat,
    lon: patch.lon ?? current.lon,
    lifeTimeInDays: patch.lifeTimeInDays ?? current.lifeTimeInDays,
    weightInGrams: patch.weightInGrams ?? current.weightInGrams,
  };
  if (JSON.stringify(fields) === JSON.stringify(current)) return toBasket(basket);
  await assertValidFields(db, caller.id, fields);
  if (!(await updateBasket(db, basket.id, fields, clock()))) throw notFound();
  return toBasket((await findBasket(db, basket.id))!);
}

function fieldsOf(row: BasketRow): BasketFields {
  return {
    description: row.description, pictures: row.pictures, contactTypes: row.contact_types, mobile: row.mobile,
    telephone: row.telephone, lat: row.lat, lon: row.lon, lifeTimeInDays: row.life_time_in_days, weightInGrams: row.weight_in_grams,
  };
}

export async function requestBasket(db: Executor, clock: Clock, caller: Caller, basketId: string): Promise<Basket> {
  const basket = await findAvailableBasket(db, clock, basketId);
  if (basket.creator_id === caller.id) throw new ApiProblem(409, 'basket.own-basket', 'You cannot request your own basket.');
  if (!(await upsertRequest(db, basket.id, caller.id, clock()))) {
    const status = await findRequestStatus(db, basket.id, caller.id);
    throw new ApiProblem(409, 'basket.already-requested', `You already requested this basket (request status ${status ?? '?'}).`);
  }
  return toBasket((await findBasket(db, basket.id))!);
}

/** The caller's open request (status 0 or 1) becomes withdrawn (5). */
export async function withdrawRequest(db: Executor, clock: Clock, caller: Caller, basketId: string): Promise<Basket> {
  const basket = await findAvailableBasket(db, clock, basketId);
  if (!(await withdrawOpenRequest(db, basket.id, caller.id, clock()))) {
    throw new ApiProblem(404, 'basket.no-open-request', 'You have no open request for this basket.');
  }
  return toBasket((await findBasket(db, basket.id))!);
}

async function findVisibleBasket(db: Executor, basketId: string): Promise<BasketRow> {
  const id = toRowId(basketId);
  const basket = id === null ? undefined : await findBasket(db, id);
  if (!basket || !isVisible(basket)) throw notFound();
  return basket;
}

async function findAvailableBasket(db: Executor, clock: Clock, basketId: string): Promise<BasketRow> {
  const basket = await findVisibleBasket(db, basketId);
  if (!isAvailable(basket, clock())) throw notFound();
  return basket;
}

function contactTypesOf(raw: readonly (number | readonly number[])[]): number[] {
  const flat = flattenContactTypes(raw);
  if (!flat) throw new ValidationFailed([{ field: 'body/contactTypes', message: 'must not list a contact type twice' }]);
  return flat;
}

async function assertValidFields(db: Executor, userId: number, fields: BasketFields): Promise<void> {
  const errors = await checkBasketFields(db, userId, fields);
  if (errors.length > 0) throw new ValidationFailed(errors);
}

function notFound(): ApiProblem {
  return new ApiProblem(404, 'basket.not-found', 'There is no such basket, or it is no longer available.');
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
