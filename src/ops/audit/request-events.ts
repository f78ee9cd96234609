/**
 * `request.events`: the request's log for security events, which also stores
 * each in the audit log with the request's client address (when the event
 * names none of its own). Routes pass it where a service wants an EventLog.
 * A request that recorded an event is answered once the event is stored (or
 * its failure logged): an action acknowledged to its author — disabling a
 * member, changing a client — is in the audit log by then (SPEC §8).
 */
import type { FastifyInstance } from 'fastify';
import { recordingEventLog, type EventLog } from '../security-events.ts';
import type { EventRecorder } from './event-recorder.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** `request.log` for security events, each also stored in the audit log (ops/audit/). */
    readonly events: EventLog;
  }
}

export function installRequestEvents(app: FastifyInstance, recorder: EventRecorder): void {
  /** Per request that recorded events: the insert of its last one (the events of one request go out in order). */
  const stored = new WeakMap<object, Promise<void>>();
  app.decorateRequest('events', {
    getter(this: { log: EventLog; ip: string; eventLog?: EventLog }) {
      this.eventLog ??= recordingEventLog(this.log, (event) => {
        stored.set(this, recorder.record(event, this.ip));
      });
      return this.eventLog;
    },
  });
  // Only this request's insert is waited for, not every event recorded meanwhile (a flood of refused requests);
  // a request that recorded none (the hot paths) passes without a promise.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const insert = stored.get(request);
    if (insert === undefined) done(null, payload);
    else void insert.then(() => done(null, payload));
  });
}
