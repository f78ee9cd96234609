/**
 * Userinfo claims by granted scope, exactly the seed's table (SPEC §5.4):
 * `sub` and `preferred_username` always; `locale` always `de-DE`;
 * `email_verified` always true; region ids as strings.
 */
import { ambassadorRegionIdsSql, memberRegionIdsSql } from '../accounts/region-access.ts';
import type { Executor } from '../db/executor.ts';
import { statement, type Statement } from '../db/statement.ts';

export interface UserinfoRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  photo: string | null;
  region_ids: number[];
  region_ambassador: number[];
  /** The grant's client (its public id) and scopes: a token must agree with both. */
  grant_client_id: string;
  grant_scopes: string[];
}

/** The user behind a live (unrevoked, unexpired) grant of this user; the region lists only when `withRegions`, else empty. */
function userOfLiveGrantStatement(name: string, withRegions: boolean): Statement<UserinfoRow> {
  return statement<UserinfoRow>(name, `
  select u.id, u.email, u.first_name, u.last_name, u.photo,
    ${withRegions ? memberRegionIdsSql('u.id') : "'{}'::int[]"} as region_ids,
    ${withRegions ? ambassadorRegionIdsSql('u.id') : "'{}'::int[]"} as region_ambassador,
    c.client_id as grant_client_id, g.scopes as grant_scopes
  from oauth_grants g
  join users u on u.id = g.user_id
  join oauth_clients c on c.id = g.client_id
  where g.id = $1 and g.user_id = $2 and g.revoked_at is null and g.expires_at > $3`);
}

/** The region lists are read for a token with the `regions` scope only: the only claims made of them (claimsFor). */
const userOfLiveGrant = userOfLiveGrantStatement('find_userinfo', false);
const userOfLiveGrantWithRegions = userOfLiveGrantStatement('find_userinfo_regions', true);

/** One indexed query, prepared once per connection: the user behind a live grant of this user, with the region lists when `withRegions`. */
export async function findUserOfLiveGrant(db: Executor, grantId: number, userId: number, now: Date, withRegions: boolean): Promise<UserinfoRow | undefined> {
  return (await (withRegions ? userOfLiveGrantWithRegions : userOfLiveGrant).rows(db, [grantId, userId, now]))[0];
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
