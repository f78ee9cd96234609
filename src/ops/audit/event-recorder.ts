/**
 * Stores every security event in `security_events` besides its log line.
 * Emitting stays synchronous (services call logSecurityEvent wherever they
 * are): the recorder queues the row and writes what has gathered in one
 * insert a moment later. A failed write is logged and never fails the request
 * or command that emitted the event; `settled()` waits for the writes under
 * way (closing the app or the CLI, tests).
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { levelOfEvent, type SecurityEvent } from '../security-events.ts';

/** At most this many rows in one insert; a burst is written in several. */
const BATCH_ROWS = 500;

export interface StoredEventRow {
  occurred_at: Date;
  event: string;
  level: 'info' | 'warn';
  user_id: number | null;
  client_id: string | null;
  ip: string | null;
  details: string;
}

/** The row of an event: the member, client and address in their columns, every other field in `details`. */
export function eventRow(event: SecurityEvent, at: Date, address?: string): StoredEventRow {
  const { event: name, ...fields } = event as SecurityEvent & Record<string, unknown>;
  const rest: Record<string, unknown> = { ...fields };
  const take = (key: string) => {
    const value = rest[key];
    delete rest[key];
    return value;
  };
  const userId = take('userId');
  const clientId = take('clientId');
  const ip = name === 'http.connections.refused' ? take('address') : take('ip');
  return {
    occurred_at: at,
    event: name,
    level: levelOfEvent(name),
    user_id: typeof userId === 'number' ? userId : null,
    client_id: typeof clientId === 'string' ? clientId : null,
    ip: typeof ip === 'string' ? ip : address ?? null,
    details: JSON.stringify(rest),
  };
}

export class EventRecorder {
  private pending: StoredEventRow[] = [];
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private readonly listeners: ((event: SecurityEvent) => void)[] = [];

  constructor(
    private readonly db: () => Promise<DB>,
    private readonly clock: Clock,
    private readonly onError: (error: unknown, rows: number) => void,
  ) {}

  /**
   * `address`: the client address of the request behind the event, when it names none of its own.
   * Resolves when the insert that holds the event is done (or its failure logged): never rejects.
   */
  record(event: SecurityEvent, address?: string): Promise<void> {
    for (const listener of this.listeners) listener(event);
    this.pending.push(eventRow(event, this.clock(), address));
    if (this.scheduled) return this.writing;
    this.scheduled = true;
    // Events of the same moment (a request's, a command's) go out in one insert.
    this.writing = this.writing.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => this.flush());
    return this.writing;
  }

  /** Tells `listener` of every event from now on, as it is recorded (the metrics count them). */
  onRecord(listener: (event: SecurityEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Resolves when every event recorded so far is written (or its failure logged). */
  async settled(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.writing;
      await seen;
    } while (seen !== this.writing);
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const rows = this.pending;
    this.pending = [];
    for (let i = 0; i < rows.length; i += BATCH_ROWS) {
      const batch = rows.slice(i, i + BATCH_ROWS);
      try {
        await (await this.db()).insertInto('security_events').values(batch).execute();
      } catch (error) {
        this.onError(error, batch.length);
      }
    }
  }
}
