/**
 * `request.events`: the request's log for security events, which also stores
 * each in the audit log with the request's client address (when the event
 * names none of its own). Routes pass it where a service wants an EventLog.
 * A request that recorded what it did (an info event) is answered once the
 * event is stored (or its failure logged): an action acknowledged to its
 * author — disabling a member, changing a client — is in the audit log by
 * then (SPEC §8); a refusal's warn event is stored without holding the answer. The
 * insert of its event goes after those queued before it: under a flood of
 * events (a guessing attack) that could take long, so the answer waits at
 * most {@link MAX_AUDIT_WAIT_MS}, then goes out and the wait is logged.
 */
import type { FastifyInstance } from 'fastify';
import { levelOfEvent, recordingEventLog, type EventLog } from '../security-events.ts';
import type { EventRecorder } from './event-recorder.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** `request.log` for security events, each also stored in the audit log (ops/audit/). */
    readonly events: EventLog;
  }
}

/** How long an answer waits for its security event's insert. */
export const MAX_AUDIT_WAIT_MS = 2_000;

export function installRequestEvents(app: FastifyInstance, recorder: EventRecorder): void {
  /** Per request that recorded events: the insert of its last one (the events of one request go out in order). */
  const stored = new WeakMap<object, Promise<void>>();
  app.decorateRequest('events', {
    getter(this: { log: EventLog; ip: string; eventLog?: EventLog }) {
      this.eventLog ??= recordingEventLog(this.log, (event) => {
        const insert = recorder.record(event, this.ip);
        // What a request did (info) is stored before it is acknowledged; a refusal (warn: a wrong secret,
        // a locked login, a replayed proof) is not held back, so that a flood of them does not wait in turn.
        if (levelOfEvent(event.event) === 'info') stored.set(this, insert);
      });
      return this.eventLog;
    },
  });
  // Waited for up to its own insert, not for events recorded after it; a request that recorded none (the
  // hot paths) passes without a promise.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const insert = stored.get(request);
    if (insert === undefined) return done(null, payload);
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      done(null, payload);
    };
    const timer = setTimeout(() => {
      request.log.warn({ waitedMs: MAX_AUDIT_WAIT_MS }, 'answered before its security event was stored: the audit log is behind');
      answer();
    }, MAX_AUDIT_WAIT_MS);
    void insert.then(answer);
  });
}
