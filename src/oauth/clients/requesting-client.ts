/**
 * The app a page's `return_to` continues, to name it on the way there (the
 * login page, the second step of a step-up): the name it was registered with.
 */
import type { Executor } from '../../db/executor.ts';
import { AUTHORIZE_PATH } from '../step-up.ts';
import { findClientRow } from './clients.repository.ts';

/**
 * The registered name of the client an authorization request in `returnTo` (a path of this server) is
 * for; null for an authorization request of no known client; undefined when `returnTo` is no
 * authorization request.
 */
export async function requestingClientName(db: Executor, returnTo: string, publicUrl: string): Promise<string | null | undefined> {
  const target = new URL(returnTo, publicUrl);
  if (target.pathname !== AUTHORIZE_PATH) return undefined;
  const clientId = target.searchParams.get('client_id');
  if (clientId === null || clientId.length > 200) return null;
  return (await findClientRow(db, clientId))?.name ?? null;
}
