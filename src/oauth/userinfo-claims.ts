/**
 * Userinfo claims by granted scope, exactly the seed's table (SPEC §5.4):
 * `sub` and `preferred_username` always; `locale` always `de-DE`;
 * `email_verified` always true; region ids as strings.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';

export interface UserinfoRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  photo: string | null;
  region_ids: number[];
  region_ambassador: number[];
}

/** One indexed query: the user behind a live (unrevoked, unexpired) grant of this user. */
export function findUserOfLiveGrant(db: Executor, grantId: number, userId: number, now: Date): Promise<UserinfoRow | undefined> {
  return db.selectFrom('oauth_grants as g')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .select([
      'u.id', 'u.email', 'u.first_name', 'u.last_name', 'u.photo',
      sql<number[]>`array(select m.region_id from region_memberships m where m.user_id = u.id order by m.region_id)`.as('region_ids'),
      sql<number[]>`array(select a.region_id from region_ambassadors a where a.user_id = u.id order by a.region_id)`.as('region_ambassador'),
    ])
    .where('g.id', '=', grantId).where('g.user_id', '=', userId)
    .where('g.revoked_at', 'is', null).where('g.expires_at', '>', now)
    .executeTakeFirst();
}

export type Claims = Record<string, string | boolean | string[]>;

/** `preferred_username` is the first name: the platform has no user names, and it reveals no more than a greeting would. */
export function claimsFor(user: UserinfoRow, scopes: readonly string[], publicUrl: string): Claims {
  const claims: Claims = { sub: String(user.id), preferred_username: user.first_name };
  if (scopes.includes('profile')) {
    claims.name = `${user.first_name} ${user.last_name}`;
    claims.given_name = user.first_name;
    claims.family_name = user.last_name;
    const picture = pictureUrl(user.photo, publicUrl);
    if (picture !== undefined) claims.picture = picture;
    claims.locale = 'de-DE';
  }
  if (scopes.includes('email')) {
    claims.email = user.email;
    claims.email_verified = true;
  }
  if (scopes.includes('regions')) {
    claims.region_ids = user.region_ids.map(String);
    claims.region_ambassador = user.region_ambassador.map(String);
  }
  return claims;
}

/** Absolute URL of the photo; users without one get no `picture` claim (OpenID Connect Core §5.3.2). */
function pictureUrl(photo: string | null, publicUrl: string): string | undefined {
  if (photo === null || photo === '') return undefined;
  if (/^https?:\/\//.test(photo)) return photo;
  return `${publicUrl}/${photo.replace(/^\/+/, '')}`;
}
