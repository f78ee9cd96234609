/** The seed's basket object, the same shape in PATCH bodies and responses. */
import { Type, type Static } from '@sinclair/typebox';
import { NO_NUL_PATTERN } from '../row-id.ts';
import { CLOSED_BODY } from '../plugin/validation.ts';
import { DigitsParam, IdParam } from '../params.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const Phone = Nullable(Type.String({ maxLength: 50, description: 'digits, spaces, - and /, optionally a leading +; empty or null: none' }));

const ContactType = Type.Integer({ enum: [1, 2] });

/** Flattens the seed's `[[1],[2]]` form; `undefined` when a type is listed twice. */
export function flattenContactTypes(raw: readonly (number | readonly number[])[]): number[] | undefined {
  const flat = raw.flat();
  return new Set(flat).size === flat.length ? flat : undefined;
}

/** The fields a creator chooses; every other basket field is read-only. */
const editable = {
  description: Type.String({ minLength: 1, maxLength: 5000, pattern: NO_NUL_PATTERN }),
  pictures: Type.Array(Type.String({ maxLength: 500 }), { maxItems: 10, description: 'URLs of the caller\'s own uploads (/api/uploads/<uuid>)' }),
  // The seed calls it an "array of arrays" (an artefact of its generator): [[1],[2]] is read as [1,2].
  contactTypes: Type.Array(Type.Union([ContactType, Type.Array(ContactType, { minItems: 1, maxItems: 1 })]),
    { minItems: 1, maxItems: 2, description: '1 chat message, 2 phone' }),
  mobile: Phone,
  telephone: Phone,
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lon: Type.Number({ minimum: -180, maximum: 180 }),
  lifeTimeInDays: Type.Integer({ minimum: 1, maximum: 21 }),
  weightInGrams: Type.Integer({ minimum: 0, maximum: 100000 }),
};

const readOnly = (description: string) => Type.Optional(Type.Unknown({ description: `read-only, ignored: ${description}` }));

export const BasketSchema = Type.Object({
  id: Type.Integer(),
  description: Type.String(),
  pictures: Type.Array(Type.String()),
  contactTypes: Type.Array(Type.Integer()),
  mobile: Type.Union([Type.String(), Type.Null()]),
  telephone: Type.Union([Type.String(), Type.Null()]),
  lat: Type.Number(),
  lon: Type.Number(),
  lifeTimeInDays: Type.Integer(),
  weightInGrams: Type.Integer(),
  status: Type.Integer({ enum: [1, 2, 5], description: '1 active, 2 picked up, 5 deleted' }),
  location: Type.Object({ lat: Type.Number(), lon: Type.Number() }),
  creator: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    avatar: Type.Union([Type.String(), Type.Null()]),
    isSleeping: Type.Boolean(),
  }),
  created: Type.String({ format: 'date-time' }),
  updated: Type.String({ format: 'date-time' }),
  until: Type.String({ format: 'date-time' }),
  requestCount: Type.Integer({ description: 'open requests (status 0 or 1)' }),
}, { title: 'Basket' });
export type Basket = Static<typeof BasketSchema>;

export const BasketPatchBody = Type.Object({
  ...Type.Partial(Type.Object(editable)).properties,
  id: readOnly('the path names the basket'),
  status: readOnly('status'),
  location: readOnly('derived from lat and lon'),
  creator: readOnly('creator'),
  created: readOnly('creation time'),
  updated: readOnly('time of the last change'),
  until: readOnly('expiry; an edit never moves it'),
  requestCount: readOnly('open requests'),
}, { additionalProperties: false, ...CLOSED_BODY, description: 'the basket object; omitted fields stay as they are, unknown fields are refused' });
export type BasketPatch = Static<typeof BasketPatchBody>;

export const BasketCreateBody = Type.Object({
  description: editable.description,
  pictures: Type.Optional(editable.pictures),
  contactTypes: editable.contactTypes,
  mobile: Type.Optional(editable.mobile),
  telephone: Type.Optional(editable.telephone),
  lat: editable.lat,
  lon: editable.lon,
  lifeTimeInDays: editable.lifeTimeInDays,
  weightInGrams: Type.Optional(editable.weightInGrams),
}, { additionalProperties: false });
export type BasketCreate = Static<typeof BasketCreateBody>;

export const BasketParams = Type.Object({ basketId: IdParam('basket id') });
/** The seed gives `\d+` for withdraw. */
export const WithdrawParams = Type.Object({ basketId: DigitsParam('basket id') });
