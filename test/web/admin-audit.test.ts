/**
 * The audit log page /admin/audit: orga only (logged out → login, others →
 * 403), the stored events newest first with time (Europe/Berlin), event,
 * member, client, address and details; the filters (member by id or email,
 * client, event, from/before in Berlin time) and paging; bad filters → 400.
 */
import { sql } from 'kysely';
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { berlinInstant } from '../../src/web/audit/audit-form.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { makeClient, unescapeHtml } from '../helpers/oauth.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { installWriteLog } from '../helpers/write-log.ts';

const t = useTestApp();
let orga: LoggedIn;
let member: LoggedIn;

beforeAll(async () => {
  orga = await t.as('orga');
  member = await t.as('foodsaver');
});

beforeEach(async () => {
  await t.app.securityEvents.settled();
  await t.db.deleteFrom('security_events').execute();
});

async function insert(rows: { at: string; event: string; userId?: number; clientId?: string; ip?: string; details?: object }[]) {
  await t.db.insertInto('security_events').values(rows.map((r) => ({
    occurred_at: new Date(r.at), event: r.event, level: 'info' as const, user_id: r.userId ?? null, client_id: r.clientId ?? null, ip: r.ip ?? null, details: JSON.stringify(r.details ?? {}),
  }))).execute();
}

const page = (query = '', cookie = orga.cookie, language = 'en') => t.app.inject({ url: `/admin/audit${query}`, headers: { cookie, 'accept-language': language } });

/** The rows of the table: each cell's text. */
function rows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => unescapeHtml(c[1]!.replace(/<[^>]+>/g, '').trim())));
}

describe('/admin/audit', () => {
  test('logged out: the login page, coming back here; a member who is not orga: 403', async () => {
    const anonymous = await t.app.inject({ url: '/admin/audit?event=oauth.logout' });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/login?return_to=%2Fadmin%2Faudit%3Fevent%3Doauth.logout');
    const forbidden = await page('', member.cookie);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.body).not.toContain('<table');
    // OWASP Logging Cheat Sheet: the refused member is on record.
    await t.app.securityEvents.settled();
    const denied = () => t.db.selectFrom('security_events').select(['level', 'user_id', 'details']).where('event', '=', 'access.denied').execute();
    expect(await denied()).toEqual([{ level: 'warn', user_id: member.user.id, details: { page: 'GET /admin/audit', reason: 'role', refused: 1 } }]);
    // At most one a minute for one member and route: hammering the page adds no rows.
    for (let i = 0; i < 5; i += 1) expect((await page('', member.cookie)).statusCode).toBe(403);
    await t.app.securityEvents.settled();
    expect(await denied()).toHaveLength(1);
  });

  test('a real event (a consent revocation) appears with its fields, time in Berlin', async () => {
    await makeClient(t, { clientId: 'karte' });
    await rememberConsent(t.db, member.user.id, (await findClientRow(t.db, 'karte'))!.id, ['openid'], new Date());
    const revoke = await t.app.inject({
      method: 'POST', url: '/settings/apps/revoke', remoteAddress: '203.0.113.5',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: member.cookie },
      payload: new URLSearchParams({ client_id: 'karte', csrf_token: member.csrfToken }).toString(),
    });
    expect(revoke.statusCode).toBe(303);
    await t.app.securityEvents.settled();
    // A fixed time, to check it is shown in Berlin time (the table is never updated otherwise).
    await sql`update security_events set occurred_at = ${new Date('2026-01-15T12:00:00Z')}`.execute(t.db);
    await insert([{ at: '2026-07-01T08:30:00Z', event: 'oauth.client.authentication_failed', clientId: 'karte', ip: '192.0.2.7', details: { reason: 'wrong client secret' } }]);
    const response = await page();
    expect(response.statusCode).toBe(200);
    expect(rows(response.body)).toEqual([
      ['1 Jul 2026, 10:30:00', 'oauth.client.authentication_failed', '', 'karte', '192.0.2.7', '{"reason":"wrong client secret"}'],
      ['15 Jan 2026, 13:00:00', 'oauth.consent.revoked', `${member.user.id} (${member.user.email})`, 'karte', '203.0.113.5', ''],
    ]);
    const german = await page('', orga.cookie, 'de');
    expect(german.body).toContain('<h1>Audit-Log</h1>');
    expect(rows(german.body)[1]![0]).toBe('15.01.2026, 13:00:00');
  });

  test('details are shown with control and bidirectional formatting characters as their escapes, as audit list prints them', async () => {
    await sql`delete from security_events`.execute(t.db);
    await insert([{ at: '2026-07-02T08:30:00Z', event: 'oauth.step_up', details: { requested: ['\u202EnoitelED rebmeM', 'a\u009b31m\u2066'] } }]);
    const response = await page();
    expect(response.body).not.toMatch(/[\u202e\u2066\u009b]/);
    expect(rows(response.body)[0]![5]).toBe('{"requested":["\\u202EnoitelED rebmeM","a\\u009B31m\\u2066"]}');
  });

  test('filters: member (id or email), client, event, from/before in Berlin time', async () => {
    await insert([
      { at: '2026-03-01T10:00:00Z', event: 'oauth.consent.granted', userId: member.user.id, clientId: 'karte' },
      { at: '2026-03-02T10:00:00Z', event: 'oauth.consent.revoked', userId: member.user.id, clientId: 'chat' },
      { at: '2026-03-03T10:00:00Z', event: 'oauth.client.deleted', clientId: 'karte' },
      { at: '2026-03-04T10:00:00Z', event: 'account.password.changed', userId: orga.user.id },
    ]);
    const events = async (query: string) => {
      const response = await page(query);
      expect(response.statusCode, query).toBe(200);
      return rows(response.body).map((r) => r[1]);
    };
    expect(await events(`?member=${member.user.id}`)).toEqual(['oauth.consent.revoked', 'oauth.consent.granted']);
    expect(await events(`?member=${encodeURIComponent(orga.user.email.toUpperCase())}`)).toEqual(['account.password.changed']);
    expect(await events('?client=karte')).toEqual(['oauth.client.deleted', 'oauth.consent.granted']);
    expect(await events('?event=oauth.consent.revoked')).toEqual(['oauth.consent.revoked']);
    // 11:00 in Berlin (winter time) is 10:00 UTC: from is inclusive, before exclusive.
    expect(await events('?from=2026-03-02T11:00&to=2026-03-04T11:00')).toEqual(['oauth.client.deleted', 'oauth.consent.revoked']);
    expect(await events('?from=2026-03-02T11:01&member=&client=&event=')).toEqual(['account.password.changed', 'oauth.client.deleted']);
    const form = (await page('?event=oauth.client.deleted&client=karte')).body;
    expect(form).toContain('<option value="oauth.client.deleted" selected>');
    expect(form).toContain('name="client" value="karte"');
  });

  test('filter by who acted: an organisation member\'s admin actions, by id or email, kept in the page links', async () => {
    await insert([
      { at: '2026-03-01T10:00:00Z', event: 'account.member.disabled', userId: member.user.id, details: { actorId: orga.user.id, sessionsEnded: 1, grantsRevoked: 0 } },
      { at: '2026-03-02T10:00:00Z', event: 'account.member.enabled', userId: member.user.id, details: { actorId: orga.user.id } },
      { at: '2026-03-03T10:00:00Z', event: 'account.member.disabled', userId: member.user.id, details: { actorId: null, sessionsEnded: 0, grantsRevoked: 0 } },
      { at: '2026-03-04T10:00:00Z', event: 'account.password.changed', userId: orga.user.id },
    ]);
    const events = async (query: string) => rows((await page(query)).body).map((r) => r[1]);
    expect(await events(`?actor=${orga.user.id}`)).toEqual(['account.member.enabled', 'account.member.disabled']);
    expect(await events(`?actor=${encodeURIComponent(orga.user.email.toUpperCase())}`)).toEqual(['account.member.enabled', 'account.member.disabled']);
    expect(await events(`?actor=${member.user.id}`)).toEqual([]);
    expect(await events(`?actor=${orga.user.id}&event=account.member.disabled`)).toEqual(['account.member.disabled']);
    expect((await page(`?actor=${orga.user.id}`)).body).toContain(`name="actor" value="${orga.user.id}"`);
    const bad = await page('?actor=nobody');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<p class="field-error" id="actor-error">A user id (a number) or an email address.</p>');
  });

  test('50 a page, newest first, with newer/older links keeping the filters', async () => {
    const start = Date.parse('2026-02-01T00:00:00Z');
    await insert(Array.from({ length: 120 }, (_, i) => ({ at: new Date(start + i * 60_000).toISOString(), event: 'oauth.client.deleted', clientId: `c${i}` })));
    const first = await page('?client=&event=oauth.client.deleted');
    expect(rows(first.body).map((r) => r[3])).toEqual(Array.from({ length: 50 }, (_, i) => `c${119 - i}`));
    expect(first.body).toContain('href="/admin/audit?event=oauth.client.deleted&amp;page=2" rel="next"');
    expect(first.body).not.toContain('rel="prev"');
    const third = await page('?event=oauth.client.deleted&page=3');
    expect(rows(third.body).map((r) => r[3])).toEqual(Array.from({ length: 20 }, (_, i) => `c${19 - i}`));
    expect(third.body).toContain('href="/admin/audit?event=oauth.client.deleted&amp;page=2" rel="prev"');
    expect(third.body).not.toContain('rel="next"');
  });

  test('bad filters: 400 with a message at each field, nothing listed', async () => {
    await insert([{ at: '2026-03-01T10:00:00Z', event: 'oauth.client.deleted', clientId: 'karte' }]);
    const response = await page('?member=nobody&event=nope&from=yesterday&to=2026-02-30T10:00&page=0');
    expect(response.statusCode).toBe(400);
    for (const field of ['member', 'event', 'from', 'to', 'page']) expect(response.body).toContain(`id="${field}-error"`);
    expect(response.body).toContain('Please correct the marked filters.');
    expect(response.body).not.toContain('<table');
  });

  test('a NUL byte or another control character in the member or client filter: 400 with the message at the field, nothing listed or written', async () => {
    await insert([{ at: '2026-03-01T10:00:00Z', event: 'oauth.client.deleted', clientId: 'karte' }]);
    await t.app.securityEvents.settled();
    const writes = await installWriteLog(t.db);
    for (const [query, field] of [['?client=%00', 'client'], ['?client=kar%00te', 'client'], ['?client=karte%01', 'client'], ['?client=%E2%80%AEkarte', 'client'],
      ['?member=a%00@example.org', 'member'], ['?member=%00@x', 'member'], ['?member=a%C2%85@example.org', 'member']]) {
      const response = await page(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.body, query).toContain(`aria-invalid="true" aria-describedby="${field}-error"`);
      expect(response.body, query).toContain('Please correct the marked filters.');
      expect(response.body, query).not.toContain('<table');
    }
    expect((await page('?client=%00')).body).toContain('<p class="field-error" id="client-error">A client id, without control characters or invisible characters that reverse the writing direction.</p>');
    expect((await page('?client=%00', orga.cookie, 'de')).body).toContain('<p class="field-error" id="client-error">Eine Client-ID, ohne Steuerzeichen');
    expect((await page('?member=a%00@example.org')).body).toContain('<p class="field-error" id="member-error">A user id (a number) or an email address.</p>');
    await t.app.securityEvents.settled();
    expect(await writes.take()).toEqual([]);
  });
});

describe('berlinInstant', () => {
  test('reads a datetime-local value or a date as Berlin time, summer and winter, and refuses impossible ones', () => {
    expect(berlinInstant('2026-01-15T13:00')?.toISOString()).toBe('2026-01-15T12:00:00.000Z');
    expect(berlinInstant('2026-07-01T10:30')?.toISOString()).toBe('2026-07-01T08:30:00.000Z');
    expect(berlinInstant('2026-03-29')?.toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(berlinInstant('2026-03-29T04:00')?.toISOString()).toBe('2026-03-29T02:00:00.000Z');
    for (const bad of ['2026-02-30', '2026-01-01T24:00', '2026-01-01T10:60', '01.01.2026', '2026-01-01 10:00']) expect(berlinInstant(bad), bad).toBeUndefined();
  });
});
