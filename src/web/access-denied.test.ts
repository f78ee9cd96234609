import { describe, expect, test } from 'vitest';
import { AccessDenials } from './access-denied.ts';

/** A clock moved by hand and a log that keeps what was written. */
function setUp(maxKeys = 100) {
  let now = 0;
  const written: Record<string, unknown>[] = [];
  const log = { info: () => {}, warn: (fields: object) => { written.push(fields as Record<string, unknown>); } };
  const denials = new AccessDenials(() => now, 60_000, maxKeys);
  const refuse = (userId: number, page: string, targetUserId?: number) =>
    denials.note({ userId, reason: 'not-allowed', page, ip: '192.0.2.1', log, ...(targetUserId === undefined ? {} : { targetUserId }) });
  return { denials, written, refuse, at: (ms: number) => { now = ms; } };
}

describe('access.denied, at most one a minute for one member, route and reason', () => {
  test('a flood is one event, and the rest one more once its minute is over, naming the last target', () => {
    const { denials, written, refuse, at } = setUp();
    refuse(7, 'POST /admin/users/:id/disable', 1);
    for (let target = 2; target <= 2000; target += 1) refuse(7, 'POST /admin/users/:id/disable', target);
    expect(written).toEqual([expect.objectContaining({ event: 'access.denied', userId: 7, targetUserId: 1, refused: 1 })]);
    at(59_999);
    denials.flush();
    expect(written).toHaveLength(1);
    at(60_000);
    denials.flush();
    expect(written[1]).toEqual(expect.objectContaining({ userId: 7, targetUserId: 2000, refused: 1999 }));
    // A quiet minute later the key is forgotten: nothing more is written.
    at(120_000);
    denials.flush();
    expect(written).toHaveLength(2);
    refuse(7, 'POST /admin/users/:id/disable', 5);
    expect(written[2]).toEqual(expect.objectContaining({ targetUserId: 5, refused: 1 }));
  });

  test('another member, route or reason has its own minute', () => {
    const { written, refuse } = setUp();
    refuse(7, 'GET /admin/users');
    refuse(8, 'GET /admin/users');
    refuse(7, 'GET /admin/audit');
    expect(written.map((e) => [e['userId'], e['page']])).toEqual([[7, 'GET /admin/users'], [8, 'GET /admin/users'], [7, 'GET /admin/audit']]);
  });

  test('over its bound, the oldest key goes, its refusals not yet recorded recorded first', () => {
    const { written, refuse } = setUp(2);
    refuse(1, 'GET /a');
    refuse(1, 'GET /a');
    refuse(2, 'GET /a');
    refuse(3, 'GET /a');
    expect(written.map((e) => [e['userId'], e['refused']])).toEqual([[1, 1], [2, 1], [1, 1], [3, 1]]);
  });
});
