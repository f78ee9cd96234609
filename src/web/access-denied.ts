/**
 * `access.denied` (OWASP Logging Cheat Sheet: authorization failures), at most one a minute for one member,
 * route and reason: a member hammering the admin screen, or trying it on one member after another, makes a
 * row a minute, not thousands, and the audit log keeps its other events in sight. `refused` counts the
 * refusals the event stands for; `targetUserId` is the last one aimed at. Refusals not yet recorded when
 * their minute is over are recorded then, as one event. Kept per server instance, in memory (bounded).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';

export interface AccessDenial {
  readonly userId: number;
  readonly reason: 'role' | 'not-allowed' | 'csrf';
  readonly targetUserId?: number;
}

interface Refused extends AccessDenial {
  readonly page: string;
  readonly ip: string;
  readonly log: EventLog;
}

interface Window { recordedAt: number; unrecorded: number; last: Refused }

/** The refusals of one server instance. */
export class AccessDenials {
  private readonly windows = new Map<string, Window>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly now: () => number = () => performance.now(), private readonly intervalMs = 60_000, private readonly maxKeys = 10_000) {}

  note(refused: Refused): void {
    const key = `${refused.userId}|${refused.page}|${refused.reason}`;
    const now = this.now();
    const window = this.windows.get(key);
    if (window && now - window.recordedAt < this.intervalMs) {
      window.unrecorded += 1;
      window.last = refused;
      return;
    }
    if (!window && this.windows.size >= this.maxKeys) this.makeRoom(now);
    // The key moves to the end: the map stays in the order of the last record, oldest first.
    this.windows.delete(key);
    this.windows.set(key, { recordedAt: now, unrecorded: 0, last: refused });
    record(refused, 1 + (window?.unrecorded ?? 0));
    this.timer ??= setInterval(() => this.flush(), this.intervalMs).unref();
  }

  /** Records the refusals whose minute is over, and forgets the quiet keys. */
  flush(): void {
    const now = this.now();
    for (const [key, window] of this.windows) {
      if (now - window.recordedAt < this.intervalMs) continue;
      if (window.unrecorded > 0) {
        record(window.last, window.unrecorded);
        window.recordedAt = now;
        window.unrecorded = 0;
      } else {
        this.windows.delete(key);
      }
    }
    if (this.windows.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Over the bound: the oldest keys go, their refusals not yet recorded recorded first. */
  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) {
      if (this.windows.size < this.maxKeys && now - window.recordedAt < this.intervalMs) break;
      if (window.unrecorded > 0) record(window.last, window.unrecorded);
      this.windows.delete(key);
      if (this.windows.size < this.maxKeys) break;
    }
  }
}

function record(refused: Refused, count: number): void {
  logSecurityEvent(refused.log, {
    event: 'access.denied', userId: refused.userId, page: refused.page, reason: refused.reason,
    ...(refused.targetUserId === undefined ? {} : { targetUserId: refused.targetUserId }), refused: count, ip: refused.ip,
  });
}

const byServer = new WeakMap<FastifyInstance, AccessDenials>();

/** The route a request reached, with its method (`POST /admin/users/:id/disable`), for the audit log. */
function routeOf(request: FastifyRequest): string {
  return `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]!}`;
}

export function noteAccessDenied(request: FastifyRequest, denial: AccessDenial): void {
  let denials = byServer.get(request.server);
  if (!denials) byServer.set(request.server, denials = new AccessDenials());
  denials.note({ ...denial, page: routeOf(request), ip: request.ip, log: request.events });
}
