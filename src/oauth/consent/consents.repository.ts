/** Remembered consents ("remember this choice", SPEC §5.2 step 6, §5.6). */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

/** The scopes a user remembered consent for (the authorization endpoint checks them inside its code statement). */
export async function findConsentScopes(db: Executor, userId: number, clientRowId: number): Promise<string[] | undefined> {
  const row = await db.selectFrom('oauth_consents').select('scopes')
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).executeTakeFirst();
  return row?.scopes;
}

/**
 * Stores a consent; an existing one is widened to the union of both scope sets. The client's row is locked
 * first (docs/security.md, "Lock order"): of a client's deletion at the same moment, either it waits and
 * deletes the consent, or it came first and nothing is stored (rather than the consent failing its foreign key).
 */
export async function rememberConsent(db: Executor, userId: number, clientRowId: number, scopes: readonly string[], now: Date): Promise<void> {
  await sql`insert into oauth_consents (user_id, client_id, scopes, created_at, updated_at)
    select ${userId}, c.id, ${[...scopes]}::text[], ${now}, ${now} from oauth_clients c where c.id = ${clientRowId} for key share of c
    on conflict (user_id, client_id) do update
      set scopes = array(select distinct s from unnest(oauth_consents.scopes || excluded.scopes) s order by s), updated_at = excluded.updated_at`.execute(db);
}
