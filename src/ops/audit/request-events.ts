/**
 * `request.events`: the request's log for security events, which also stores
 * each in the audit log with the request's client address (when the event
 * names none of its own). Routes pass it where a service wants an EventLog.
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
  app.decorateRequest('events', {
    getter(this: { log: EventLog; ip: string; eventLog?: EventLog }) {
      this.eventLog ??= recordingEventLog(this.log, (event) => recorder.record(event, this.ip));
      return this.eventLog;
    },
  });
}
