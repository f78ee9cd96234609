/** Finding members for the admin screen's member list (`/admin/users`) and the member page. */
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import { hasRefusedNameCharacters } from '../text/control-characters.ts';

export interface MemberSummary {
  readonly id: number;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly role: number;
  readonly disabledAt: Date | null;
}

export interface MemberPage {
  readonly members: readonly MemberSummary[];
  /** More members follow this page. */
  readonly more: boolean;
}

/**
 * Members whose email or name ("first last") contains `text` (any case; all
 * when it is empty), deleted ones left out, ordered by last name, first name
 * and id — stable from page to page: `limit` after skipping `offset`. A text
 * with a character no name or address may hold finds nobody (PostgreSQL
 * text cannot even hold NUL).
 */
export async function searchMembers(db: Executor, text: string, limit: number, offset: number): Promise<MemberPage> {
  if (hasRefusedNameCharacters(text)) return { members: [], more: false };
  let query = db.selectFrom('users').select(['id', 'email', 'first_name', 'last_name', 'role', 'disabled_at']).where('deleted_at', 'is', null);
  const needle = text.trim().toLowerCase();
  if (needle !== '') {
    // position(), not LIKE: the text's % and _ are letters, not patterns.
    query = query.where((eb) => eb.or([
      eb(sql<number>`position(${needle} in lower(email))`, '>', 0),
      eb(sql<number>`position(${needle} in lower(first_name || ' ' || last_name))`, '>', 0),
    ]));
  }
  const rows = await query.orderBy(sql`lower(last_name)`).orderBy(sql`lower(first_name)`).orderBy('id').limit(limit + 1).offset(offset).execute();
  return {
    more: rows.length > limit,
    members: rows.slice(0, limit).map((r) => ({ id: r.id, email: r.email, firstName: r.first_name, lastName: r.last_name, role: r.role, disabledAt: r.disabled_at })),
  };
}

export interface MemberRecord extends MemberSummary {
  readonly verified: boolean;
  readonly homeRegionId: number | null;
  readonly createdAt: Date;
}

/** One member who was not deleted, or undefined. */
export async function findMember(db: Executor, id: number): Promise<MemberRecord | undefined> {
  const r = await db.selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'role', 'disabled_at', 'verified', 'home_region_id', 'created_at'])
    .where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return r && {
    id: r.id, email: r.email, firstName: r.first_name, lastName: r.last_name, role: r.role, disabledAt: r.disabled_at,
    verified: r.verified, homeRegionId: r.home_region_id, createdAt: r.created_at,
  };
}
