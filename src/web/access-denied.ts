/**
 * `access.denied` (OWASP Logging Cheat Sheet: authorization failures), at most one a minute for one member,
 * route, reason and target: a member hammering the admin screen makes a row a minute, not thousands, and
 * the audit log keeps its other events in sight. `refused` counts the refusals the event stands for: this
 * one and those not recorded since the last. Kept per server instance, in memory (a handful of keys).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { logSecurityEvent } from '../ops/security-events.ts';

const INTERVAL_MS = 60_000;
const MAX_KEYS = 10_000;

interface Seen { at: number; unrecorded: number }

const seenByServer = new WeakMap<FastifyInstance, Map<string, Seen>>();

export interface AccessDenial {
  readonly userId: number;
  readonly reason: 'role' | 'not-allowed' | 'csrf';
  readonly targetUserId?: number;
}

/** The route template a request reached (`/admin/users/:id/disable`), for the audit log. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? request.url.split('?')[0]!;
}

export function noteAccessDenied(request: FastifyRequest, denial: AccessDenial): void {
  const page = routeOf(request);
  let seen = seenByServer.get(request.server);
  if (!seen) seenByServer.set(request.server, seen = new Map());
  const key = `${denial.userId}|${request.method} ${page}|${denial.reason}|${denial.targetUserId ?? ''}`;
  const now = performance.now();
  const last = seen.get(key);
  if (last && now - last.at < INTERVAL_MS) {
    last.unrecorded += 1;
    return;
  }
  if (seen.size >= MAX_KEYS) {
    for (const [k, v] of seen) if (now - v.at >= INTERVAL_MS) seen.delete(k);
    if (seen.size >= MAX_KEYS) seen.clear();
  }
  seen.set(key, { at: now, unrecorded: 0 });
  logSecurityEvent(request.events, {
    event: 'access.denied', userId: denial.userId, page, reason: denial.reason,
    ...(denial.targetUserId === undefined ? {} : { targetUserId: denial.targetUserId }), refused: 1 + (last?.unrecorded ?? 0), ip: request.ip,
  });
}
