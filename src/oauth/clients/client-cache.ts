/**
 * Clients in memory (SPEC §8: two database round trips per code exchange, not
 * three; and one less for authorize under a remembered consent). A cached
 * client may only ever say yes, and only provisionally:
 * - every statement that acts on a client's authority (redeeming a code,
 *   rotating a refresh token, storing a code under a remembered consent)
 *   also checks that the client's `version` is the
 *   one read; a change made anywhere (another instance, the CLI, a cascade)
 *   raises it, the statement then changes nothing and reports the client
 *   stale ({@link StaleClient});
 * - every refusal reached with a cached client (wrong secret, unknown
 *   redirect URI, …) and every stale report is decided again on a fresh read
 *   (not a device's "not yet", which refuses nothing).
 * So instances never act on an outdated client, and never refuse on one.
 */
import type { Executor } from '../../db/executor.ts';
import { OAuthError, TemporarilyUnavailable } from '../errors.ts';
import { findClientRow, type ClientRow } from './clients.repository.ts';

/** How many clients an instance keeps; past that it starts afresh (only registered clients are kept). */
const MAX_CLIENTS = 1000;

export type ClientLookup = (clientId: string) => Promise<ClientRow | undefined>;

/** A statement found the client changed since it was read: nothing was written. */
export class StaleClient extends Error {
  constructor() {
    super('the client changed since it was read');
    this.name = 'StaleClient';
  }
}

export class ClientCache {
  private readonly rows = new Map<string, ClientRow>();

  constructor(private readonly db: Executor) {}

  /** A read from the database, kept for later requests. */
  readonly load: ClientLookup = async (clientId) => {
    const row = await findClientRow(this.db, clientId);
    if (row) {
      if (this.rows.size >= MAX_CLIENTS) this.rows.clear();
      this.rows.set(clientId, row);
    } else {
      this.rows.delete(clientId);
    }
    return row;
  };

  /** The client as last read, if kept: only for a caller that checks its version where it acts (authorize's remembered consent). */
  kept(clientId: string): ClientRow | undefined {
    return this.rows.get(clientId);
  }

  /**
   * Runs `use` with clients from memory where possible. When it refuses
   * ({@link OAuthError}) or meets a stale client after using a cached one, the
   * cached clients are dropped and `use` runs once more on fresh reads: that
   * answer stands. `use` must be safe to repeat after a refusal (its writes, if
   * any, idempotent: revoking what is already revoked).
   */
  async run<T>(use: (find: ClientLookup) => Promise<T>): Promise<T> {
    const served: string[] = [];
    const find: ClientLookup = async (clientId) => {
      const cached = this.rows.get(clientId);
      if (!cached) return this.load(clientId);
      served.push(clientId);
      return cached;
    };
    try {
      return await use(find);
    } catch (error) {
      if (served.length === 0 || !(isRefusal(error) || error instanceof StaleClient)) return rethrowStale(error);
      for (const clientId of served) this.rows.delete(clientId);
      return use(this.load).catch(rethrowStale);
    }
  }
}

/**
 * A "not yet" of the device flow (authorization_pending, slow_down) is no
 * refusal: it is not decided again, which would note the poll's pace twice. It
 * grants nothing either, and the redemption that follows checks the version.
 * Every other answer is, whether or not the failure limiter counts it
 * (access_denied, expired_token): a client whose secret was just replaced
 * learns nothing with the old one.
 */
function isRefusal(error: unknown): boolean {
  return error instanceof OAuthError && !error.isNotYet;
}

/** A client changed (or was deleted) between a fresh read and the statement: rare, and worth a retry by the client. */
export function clientChangedDuringRequest(): TemporarilyUnavailable {
  return new TemporarilyUnavailable('The client registration changed during the request; try again.');
}

function rethrowStale(error: unknown): never {
  if (error instanceof StaleClient) throw clientChangedDuringRequest();
  throw error;
}
