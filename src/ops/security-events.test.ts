import { describe, expect, test } from 'vitest';
import { deferredEventLog, logSecurityEvent, type EventLog } from './security-events.ts';

describe('a deferred event log', () => {
  test('passes nothing on before release, then everything in order, once', () => {
    const seen: [string, object, string][] = [];
    const log: EventLog = { info: (fields, message) => seen.push(['info', fields, message]), warn: (fields, message) => seen.push(['warn', fields, message]) };
    const deferred = deferredEventLog(log);
    logSecurityEvent(deferred.log, { event: 'oauth.client.created', clientId: 'a', confidential: true });
    logSecurityEvent(deferred.log, { event: 'oauth.client.deleted', clientId: 'b' });
    expect(seen).toEqual([]);
    deferred.release();
    expect(seen.map(([level, fields]) => [level, fields])).toEqual([
      ['info', { event: 'oauth.client.created', clientId: 'a', confidential: true }],
      ['info', { event: 'oauth.client.deleted', clientId: 'b' }],
    ]);
    deferred.release();
    expect(seen).toHaveLength(2);
  });
});
