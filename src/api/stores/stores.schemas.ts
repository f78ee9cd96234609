/** TypeBox schemas of the store operations (seed: REST API table; SPEC-API). */
import { Type, type Static } from '@sinclair/typebox';
import { DateTimeString, IdParam } from '../params.ts';

export const StoreParams = Type.Object({ storeId: IdParam('store id') });

export const StorePostParams = Type.Object({
  storeId: IdParam('store id'),
  postId: IdParam('wall post id'),
});

/**
 * RFC 3339 `date-time` (§5.6): `T` or `t`, optional fraction, `Z` or a
 * `±hh:mm` offset. Field ranges are checked after matching.
 */
export const RFC3339_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';

export const PickupParams = Type.Object({
  storeId: IdParam('store id'),
  pickupDate: Type.String({ pattern: RFC3339_DATE_TIME, maxLength: 40, description: 'start of the pickup slot, RFC 3339 date-time, e.g. 2026-11-21T14:00:00+01:00' }),
  fsId: IdParam('id of the user who signs up: the caller'),
});

export const ManagerParams = Type.Object({
  storeId: IdParam('store id'),
  userId: IdParam('id of the user to make a store manager'),
});

export const WallPostAuthorSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'first name' }),
  avatar: Type.Union([Type.String(), Type.Null()], { description: 'photo URL, null when none' }),
  sleepStatus: Type.Integer({ enum: [0, 1], description: '0 active, 1 sleeping' }),
}, { title: 'WallPostAuthor' });

export const WallPostSchema = Type.Object({
  id: Type.Integer(),
  foodsaverId: Type.Integer({ description: 'the author\'s user id' }),
  text: Type.String(),
  author: WallPostAuthorSchema,
  createdAt: DateTimeString('when the post was written'),
}, { title: 'WallPost' });
export type WallPost = Static<typeof WallPostSchema>;

export const WallPostListSchema = Type.Array(WallPostSchema, { description: 'the 50 newest posts, newest first' });

export const PickupSignupSchema = Type.Object({
  isConfirmed: Type.Boolean({ description: 'true when the caller manages the store: no manager needs to confirm it' }),
}, { title: 'PickupSignup' });
