/**
 * PostgreSQL `LISTEN` on one dedicated connection (not one of the pool's: a
 * pooled connection goes back to the pool and stops hearing). Notifications
 * are delivered only while the connection is up; after a drop it reconnects
 * with growing back-off, and `onListening` runs again so that the listener can
 * reload what it may have missed (PostgreSQL docs, NOTIFY: a session not
 * listening when the notification is sent never receives it).
 *
 * A channel is shared by every schema of the database: the notifications of
 * this application carry the schema of the table that changed as their
 * payload (migration 048), and only those of this connection's schema are
 * delivered.
 */
import pg from 'pg';

export interface NotificationHandlers {
  /** A notification for this schema arrived. */
  onNotify(): void;
  /** The connection listens (again): notifications sent while it did not are lost. */
  onListening(info: { readonly backendPid: number }): void;
  /** A connection attempt failed or the connection was lost; it is retried. */
  onError(error: Error, retryInMs: number): void;
}

export interface Subscription {
  /** Stops listening and retrying. */
  close(): Promise<void>;
}

export interface ListenTarget {
  readonly url: string;
  readonly schema?: string;
  readonly connectTimeoutMs: number;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const KEEPALIVE_DELAY_MS = 10_000;

/** Listens on `channel` until closed; never throws (failures go to `onError` and are retried). */
export function listenForNotifications(target: ListenTarget, channel: string, handlers: NotificationHandlers): Subscription {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  let closed = false;
  let client: pg.Client | undefined;
  let retryMs = FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const current = client = new pg.Client({
      connectionString: target.url,
      connectionTimeoutMillis: target.connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      application_name: `listen ${channel}`,
      ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
    });
    let lost = false;
    const retry = (error: Error) => {
      if (lost || closed) return;
      lost = true;
      current.end().catch(() => {});
      handlers.onError(error, retryMs);
      timer = setTimeout(() => { void connect(); }, retryMs);
      timer.unref();
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    };
    current.on('error', retry);
    current.on('end', () => retry(new Error('the listening connection ended')));
    try {
      await current.connect();
      const { rows: [session] } = await current.query<{ schema: string; pid: number }>('select current_schema() as schema, pg_backend_pid() as pid');
      current.on('notification', (message) => {
        if (message.channel === channel && message.payload === session?.schema) handlers.onNotify();
      });
      await current.query(`listen ${channel}`);
      if (closed || lost) return;
      retryMs = FIRST_RETRY_MS;
      handlers.onListening({ backendPid: session!.pid });
    } catch (error) {
      retry(error instanceof Error ? error : new Error(String(error)));
    }
  };

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
