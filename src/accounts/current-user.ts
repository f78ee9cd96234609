import { Type, type Static } from '@sinclair/typebox';
import type { DB } from '../db/database.ts';
import { findRegionIdsOfUser, type UserRow } from './users.repository.ts';

export const CurrentUserSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  photo: Type.Union([Type.String(), Type.Null()]),
  role: Type.Integer({ minimum: 0, maximum: 4, description: '0 foodsharer, 1 foodsaver, 2 store manager, 3 ambassador, 4 orga' }),
  verified: Type.Boolean(),
  sleeping: Type.Boolean(),
  regionIds: Type.Array(Type.Integer(), { description: 'regions and working groups the user is a member of' }),
  ambassadorRegionIds: Type.Array(Type.Integer(), { description: 'regions the user coordinates' }),
  csrfToken: Type.String({ description: 'send as X-CSRF-Token on every POST, PUT, PATCH and DELETE under /api' }),
}, { title: 'CurrentUser' });

export type CurrentUser = Static<typeof CurrentUserSchema>;

export async function describeCurrentUser(db: DB, user: UserRow, csrfToken: string): Promise<CurrentUser> {
  const regions = await findRegionIdsOfUser(db, user.id);
  return {
    id: user.id,
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
    photo: user.photo,
    role: user.role,
    verified: user.verified,
    sleeping: user.sleeping,
    regionIds: regions.member,
    ambassadorRegionIds: regions.ambassador,
    csrfToken,
  };
}
