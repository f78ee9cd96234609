/** Remembered consents ("remember this choice", SPEC §5.2 step 6, §5.6). */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

/** The scopes a user remembered consent for (the authorization endpoint checks them inside its code statement). */
export async function findConsentScopes(db: Executor, userId: number, clientRowId: number): Promise<string[] | undefined> {
  const row = await db.selectFrom('oauth_consents').select('scopes')
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).executeTakeFirst();
  return row?.scopes;
}

/** Stores a consent; an existing one is widened to the union of both scope sets. */
export async function rememberConsent(db: Executor, userId: number, clientRowId: number, scopes: readonly string[], now: Date): Promise<void> {
  await db.insertInto('oauth_consents')
    .values({ user_id: userId, client_id: clientRowId, scopes: [...scopes], created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({
      scopes: sql<string[]>`array(select distinct s from unnest(oauth_consents.scopes || excluded.scopes) s order by s)`,
      updated_at: now,
    }))
    .execute();
}
