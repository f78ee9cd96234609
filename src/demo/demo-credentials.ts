/**
 * Which published demo credentials still work on a database: a
 * production start refuses while any does (startup.ts), `demo remove` ends
 * them. The demo accounts are those of the demo summary (migration 042) and
 * the known demo addresses; only theirs are verified, in parallel, so the
 * check costs one Argon2 verification's time, not one per member.
 */
import { sql } from 'kysely';
import { verifyPassword } from '../accounts/passwords.ts';
import type { Executor } from '../db/executor.ts';
import { isClientSecretValid } from '../oauth/clients/client-secret.ts';
import type { KeyMaterial } from '../oauth/keys/key-material.ts';
import { DEMO_PASSWORD, DEMO_USER_EMAILS } from './demo-data.ts';
import { DEMO_CLIENT_IDS, DEMO_CLIENT_SECRET } from './demo-oauth.ts';
import { findDemoSummary } from './demo-summary.ts';

export interface LiveDemoCredential {
  readonly kind: 'account' | 'client';
  /** The account's email or the client's id. */
  readonly name: string;
}

interface RecordedDemo {
  users?: { email: string }[];
  oauthClients?: { clientId: string }[];
}

/** The demo accounts' addresses and the demo clients' ids: the summary's and the known ones. */
export async function demoIdentities(db: Executor): Promise<{ emails: string[]; clientIds: string[] }> {
  const summary = await findDemoSummary<RecordedDemo>(db);
  const emails = new Set<string>([...DEMO_USER_EMAILS, ...(summary?.users ?? []).map((u) => u.email)].map((e) => e.toLowerCase()));
  const clientIds = new Set<string>([...DEMO_CLIENT_IDS, ...(summary?.oauthClients ?? []).map((c) => c.clientId)]);
  return { emails: [...emails], clientIds: [...clientIds] };
}

/** The demo accounts that still have the demo password and the demo clients that still have the demo secret. */
export async function findLiveDemoCredentials(db: Executor, keys: KeyMaterial): Promise<LiveDemoCredential[]> {
  const { emails, clientIds } = await demoIdentities(db);
  const users = await db.selectFrom('users').select(['email', 'password_hash'])
    .where(sql<boolean>`lower(email) in (${sql.join(emails)})`).orderBy('id').execute();
  const clients = await db.selectFrom('oauth_clients').select(['client_id', 'secret_digest'])
    .where('client_id', 'in', clientIds).where('confidential', '=', true).orderBy('client_id').execute();
  const accounts = await Promise.all(users.map(async (u) => (await verifyPassword(u.password_hash, DEMO_PASSWORD) ? [u.email] : [])));
  return [
    ...accounts.flat().map((name) => ({ kind: 'account' as const, name })),
    ...clients.filter((c) => isClientSecretValid(keys, c.secret_digest, DEMO_CLIENT_SECRET)).map((c) => ({ kind: 'client' as const, name: c.client_id })),
  ];
}
