/**
 * The scheduled purge (src/purge-tasks.ts, run by ops/maintenance.ts): one
 * run deletes exactly the expired rows of every table whose rows expire, in
 * bounded batches (sessions here span three), and keeps every live row.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, test } from 'vitest';
import { PURGE_BATCH, purgeExpired } from '../../src/ops/maintenance.ts';
import { purgeTasks } from '../../src/purge-tasks.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient } from '../helpers/oauth.ts';

const t = useTestApp({ clock: new FrozenClock(new Date('2026-06-01T12:00:00Z')) });
const DAY = 24 * 3600 * 1000;
const EXPIRED_SESSIONS = 2 * PURGE_BATCH + 7;

/** The clock's instant moved by `ms`. */
const at = (ms: number) => new Date(t.clock.now().getTime() + ms);

let userId: number;
let clientRowId: number;

async function count(query: ReturnType<typeof sql<{ n: number }>>): Promise<number> {
  return (await query.execute(t.db)).rows[0]!.n;
}

async function labels(table: string, column: string): Promise<string[]> {
  const { rows } = await sql<{ label: string }>`select ${sql.ref(column)}::text as label from ${sql.table(table)} order by 1`.execute(t.db);
  return rows.map((r) => r.label);
}

beforeAll(async () => {
  userId = (await makeUser(t.db)).id;
  const { clientId } = await makeClient(t);
  clientRowId = (await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', clientId).executeTakeFirstOrThrow()).id;
  const db = t.db;
  // Sessions: more expired than two batches, and two live ones.
  await sql`insert into sessions (id_digest, user_id, csrf_token, remember, auth_time, expires_at)
    select sha256(('expired-' || g)::bytea), ${userId}, 'c', false, ${at(-2 * DAY)}, ${at(-1000)} from generate_series(1, ${EXPIRED_SESSIONS}) g`.execute(db);
  await sql`insert into sessions (id_digest, user_id, csrf_token, remember, auth_time, expires_at, sid) values
    (sha256('live-1'::bytea), ${userId}, 'c', false, ${at(-DAY)}, ${at(1000)}, 'live-1'),
    (sha256('live-2'::bytea), ${userId}, 'c', true, ${at(-DAY)}, ${at(30 * DAY)}, 'live-2')`.execute(db);
  await sql`insert into login_throttle (key, failures, window_ends_at) values
    ('ended', 3, ${at(-1)}), ('ends-now', 1, ${at(0)}), ('running', 2, ${at(60_000)})`.execute(db);
  await sql`insert into oauth_failure_windows (key, failures, resets_at) values
    ('ended', 30, ${at(-1)}), ('ends-now', 1, ${at(0)}), ('running', 5, ${at(30_000)})`.execute(db);
  await sql`insert into login_unlock_tokens (digest, account, user_id, return_to, expires_at) values
    ('\\x01', 'expired', ${userId}, '/', ${at(-1)}), ('\\x02', 'live', ${userId}, '/', ${at(60_000)})`.execute(db);
  await sql`insert into password_reset_tokens (digest, user_id, return_to, password_hash_digest, expires_at) values
    ('\\x01', ${userId}, '/expired', '\\x00', ${at(-1)}), ('\\x02', ${userId}, '/live', '\\x00', ${at(60_000)})`.execute(db);
  await sql`insert into mail_outbox (kind, recipient, locale, state, finished_at) values
    ('old-sent', 'a@example.org', 'en', 'sent', ${at(-8 * DAY)}), ('old-abandoned', 'a@example.org', 'de', 'abandoned', ${at(-8 * DAY)}),
    ('recent-sent', 'a@example.org', 'en', 'sent', ${at(-6 * DAY)}), ('pending', 'a@example.org', 'en', 'pending', null)`.execute(db);
  await sql`insert into oauth_logout_notices (client_id, backchannel_logout_uri, sub, state, finished_at) values
    ('old-sent', 'https://rp.example/logout', '1', 'sent', ${at(-8 * DAY)}), ('recent-sent', 'https://rp.example/logout', '1', 'sent', ${at(-6 * DAY)}),
    ('pending', 'https://rp.example/logout', '1', 'pending', null)`.execute(db);
  // Grants: one expired (its refresh-token row goes with it), one live with an expired rotated row and a live row.
  await sql`insert into oauth_grants (id, client_id, user_id, scopes, auth_time, expires_at) values
    (9001, ${clientRowId}, ${userId}, '{openid}', ${at(-40 * DAY)}, ${at(-1)}),
    (9002, ${clientRowId}, ${userId}, '{openid}', ${at(-40 * DAY)}, ${at(20 * DAY)})`.execute(db);
  await sql`insert into oauth_refresh_tokens (id, grant_id, scopes, expires_at, rotated_at, successor_id) values
    (8001, 9001, '{openid}', ${at(-1)}, null, null),
    (8002, 9002, '{openid}', ${at(-1)}, ${at(-10 * DAY)}, 8003),
    (8003, 9002, '{openid}', ${at(20 * DAY)}, null, null)`.execute(db);
  // Codes stay a day past expiry.
  await sql`insert into oauth_codes (code_digest, client_id, user_id, redirect_uri, scopes, auth_time, expires_at, grant_id, nonce) values
    ('\\x01', ${clientRowId}, ${userId}, 'http://127.0.0.1/cb', '{openid}', ${at(-2 * DAY)}, ${at(-DAY - 1)}, 9002, 'day-old'),
    ('\\x02', ${clientRowId}, ${userId}, 'http://127.0.0.1/cb', '{openid}', ${at(-DAY)}, ${at(-3600_000)}, 9002, 'hour-old'),
    ('\\x03', ${clientRowId}, ${userId}, 'http://127.0.0.1/cb', '{openid}', ${at(0)}, ${at(60_000)}, null, 'live')`.execute(db);
  await sql`insert into oauth_pushed_requests (reference_digest, client_id, parameters, expires_at) values
    ('\\x01', ${clientRowId}, '{"state":"expired"}', ${at(-1)}), ('\\x02', ${clientRowId}, '{"state":"live"}', ${at(60_000)})`.execute(db);
  await sql`insert into oauth_client_assertions (jti_digest, expires_at) values ('\\x01', ${at(-1)}), ('\\x02', ${at(60_000)})`.execute(db);
  await sql`insert into oauth_dpop_proofs (jti_digest, expires_at) values ('\\x01', ${at(-1)}), ('\\x02', ${at(60_000)})`.execute(db);
  // Device authorizations stay a day past expiry, like codes.
  await sql`insert into oauth_device_codes (device_code_digest, user_code_digest, client_id, scopes, expires_at) values
    ('\\x01', '\\x01', ${clientRowId}, '{day-old}', ${at(-DAY - 1)}), ('\\x02', '\\x02', ${clientRowId}, '{hour-old}', ${at(-3600_000)})`.execute(db);
  await sql`insert into oauth_signing_keys (kid, private_jwe, public_jwk, activated_at, retired_at, not_after) values
    ('purge-expired', 'x', '{}', ${at(-3 * DAY)}, ${at(-2 * DAY)}, ${at(-1)}), ('purge-live', 'x', '{}', ${at(-3 * DAY)}, ${at(-DAY)}, ${at(60_000)})`.execute(db);
  // Passkey challenges (every sign-in form asks for one, most are never answered) and second steps never completed.
  await sql`insert into webauthn_challenges (challenge_digest, purpose, binding_digest, expires_at) values
    ('\\x01', 'authentication', '\\x00', ${at(-1)}), ('\\x02', 'registration', '\\x00', ${at(60_000)})`.execute(db);
  await sql`insert into pending_logins (id_digest, user_id, account, remember, return_to, expires_at) values
    ('\\x01', ${userId}, 'expired', false, '/', ${at(-1)}), ('\\x02', ${userId}, 'live', false, '/', ${at(60_000)})`.execute(db);
  await t.app.securityEvents.settled();
  await db.deleteFrom('security_events').execute();
  await sql`insert into security_events (occurred_at, event, level) values
    (${at(-91 * DAY)}, 'old', 'info'), (${at(-89 * DAY)}, 'recent', 'info')`.execute(db);

  await purgeExpired(db, t.clock.now, purgeTasks({ auditRetentionDays: 90 }));
});

describe('one run of the scheduled purge', () => {
  test('sessions: every expired one, over several batches; the live ones stay', async () => {
    expect(await count(sql<{ n: number }>`select count(*)::int as n from sessions where user_id = ${userId}`)).toBe(2);
    expect(await labels('sessions', 'sid')).toEqual(['live-1', 'live-2']);
  });

  test('login and token-endpoint counters whose window ended, unlock and reset links past expiry', async () => {
    expect(await labels('login_throttle', 'key')).toEqual(['running']);
    expect(await labels('oauth_failure_windows', 'key')).toEqual(['running']);
    expect(await labels('login_unlock_tokens', 'account')).toEqual(['live']);
    expect(await labels('password_reset_tokens', 'return_to')).toEqual(['/live']);
  });

  test('mails and logout notices finished a week ago; pending and recent ones stay', async () => {
    expect(await labels('mail_outbox', 'kind')).toEqual(['pending', 'recent-sent']);
    expect(await labels('oauth_logout_notices', 'client_id')).toEqual(['pending', 'recent-sent']);
  });

  test('grants past expiry with their refresh tokens; expired rotated rows of a live grant', async () => {
    expect(await labels('oauth_grants', 'id')).toEqual(['9002']);
    expect(await labels('oauth_refresh_tokens', 'id')).toEqual(['8003']);
  });

  test('codes a day past expiry; pushed requests and client assertions past expiry', async () => {
    expect(await labels('oauth_codes', 'nonce')).toEqual(['hour-old', 'live']);
    expect(await labels('oauth_pushed_requests', 'parameters')).toEqual(['{"state": "live"}']);
    expect(await labels('oauth_client_assertions', 'jti_digest')).toEqual(['\\x02']);
  });

  test('device authorizations a day past expiry; DPoP proofs and signing keys past their time', async () => {
    expect(await labels('oauth_device_codes', 'scopes')).toEqual(['{hour-old}']);
    expect(await labels('oauth_dpop_proofs', 'jti_digest')).toEqual(['\\x02']);
    const kids = await labels('oauth_signing_keys', 'kid');
    expect(kids).toContain('purge-live');
    expect(kids).not.toContain('purge-expired');
  });

  test('passkey challenges and second steps past expiry', async () => {
    expect(await labels('webauthn_challenges', 'challenge_digest')).toEqual(['\\x02']);
    expect(await labels('pending_logins', 'account')).toEqual(['live']);
  });

  test('every table with a column that says when its rows end is one this file shows purged', async () => {
    const { rows } = await sql<{ table: string }>`select distinct table_name as table from information_schema.columns
      where table_schema = current_schema() and column_name in ('expires_at', 'resets_at', 'window_ends_at', 'not_after', 'finished_at')
      order by 1`.execute(t.db);
    expect(rows.map((r) => r.table)).toEqual([
      'login_throttle', 'login_unlock_tokens', 'mail_outbox', 'oauth_client_assertions', 'oauth_codes', 'oauth_device_codes',
      'oauth_dpop_proofs', 'oauth_failure_windows', 'oauth_grants', 'oauth_logout_notices', 'oauth_pushed_requests',
      'oauth_refresh_tokens', 'oauth_signing_keys', 'password_reset_tokens', 'pending_logins', 'sessions', 'webauthn_challenges',
    ]);
  });

  test('audit events older than the retention', async () => {
    expect(await labels('security_events', 'event')).toEqual(['recent']);
  });

  test('a second run finds nothing more to delete', async () => {
    const before = await count(sql<{ n: number }>`select ((select count(*) from sessions) + (select count(*) from oauth_codes)
      + (select count(*) from oauth_refresh_tokens) + (select count(*) from mail_outbox))::int as n`);
    await purgeExpired(t.db, t.clock.now, purgeTasks({ auditRetentionDays: 90 }));
    expect(await count(sql<{ n: number }>`select ((select count(*) from sessions) + (select count(*) from oauth_codes)
      + (select count(*) from oauth_refresh_tokens) + (select count(*) from mail_outbox))::int as n`)).toBe(before);
  });
});
