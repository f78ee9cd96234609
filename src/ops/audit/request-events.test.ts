import Fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import type { DB } from '../../db/database.ts';
import { logSecurityEvent } from '../security-events.ts';
import { EventRecorder } from './event-recorder.ts';
import { installRequestEvents, MAX_AUDIT_WAIT_MS } from './request-events.ts';

describe('answers and their security events', () => {
  test('an answer waits for its event\'s insert, but no longer than the limit when the audit log is behind', async () => {
    const lines: string[] = [];
    const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { lines.push(line); } } } });
    let release: () => void = () => {};
    // An insert that hangs until released: the audit log behind a flood of events.
    const stuck = new Promise<void>((resolve) => { release = resolve; });
    const recorder = new EventRecorder(async () => { await stuck; return { insertInto: () => ({ values: () => ({ execute: async () => [] }) }) } as unknown as DB; }, () => new Date(), () => {});
    installRequestEvents(app, recorder);
    app.get('/quiet', async () => 'no event');
    app.get('/recorded', async (request) => {
      logSecurityEvent(request.events, { event: 'oauth.consent.revoked', userId: 1, clientId: 'c' });
      return 'recorded';
    });
    app.get('/refused', async (request) => {
      logSecurityEvent(request.events, { event: 'account.login.locked', lockedBy: 'source', retryAfterSeconds: 60, ip: '192.0.2.1' });
      return 'refused';
    });
    const quiet = await app.inject('/quiet');
    expect(quiet.body).toBe('no event');
    // A refusal's (warn) event does not hold its answer: a flood of refusals does not queue behind the audit log.
    // The insert hangs, so an answer that waited would have logged its wait beside the refusal.
    expect((await app.inject('/refused')).body).toBe('refused');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['login refused: too many failed attempts']);
    const started = performance.now();
    const recorded = await app.inject('/recorded');
    expect(recorded.body).toBe('recorded');
    expect(performance.now() - started).toBeGreaterThanOrEqual(MAX_AUDIT_WAIT_MS - 50);
    expect(lines.map((line) => JSON.parse(line).msg)).toContain('answered before its security event was stored: the audit log is behind');
    release();
    await recorder.settled();
    await app.close();
  });
});
