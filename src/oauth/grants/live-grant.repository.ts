/** The state of a grant as token introspection needs it. */
import type { Executor } from '../../db/executor.ts';

export interface LiveGrant {
  /** The public id of the client the grant was made to. */
  client_id: string;
  user_id: number;
  scopes: string[];
}

/** The grant when it is neither revoked nor past its last token's expiry. */
export async function findLiveGrant(db: Executor, grantId: number, now: Date): Promise<LiveGrant | undefined> {
  return db.selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .select(['c.client_id', 'g.user_id', 'g.scopes'])
    .where('g.id', '=', grantId).where('g.revoked_at', 'is', null).where('g.expires_at', '>', now)
    .executeTakeFirst();
}

export interface GrantState extends LiveGrant {
  id: number;
  revoked_at: Date | null;
  /** When its last token expires. */
  expires_at: Date;
}

/** The grant whatever its state (the operator's `token revoke` reports it). */
export async function findGrantState(db: Executor, grantId: number): Promise<GrantState | undefined> {
  return db.selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .select(['g.id', 'c.client_id', 'g.user_id', 'g.scopes', 'g.revoked_at', 'g.expires_at'])
    .where('g.id', '=', grantId)
    .executeTakeFirst();
}
