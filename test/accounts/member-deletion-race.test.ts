/**
 * A member deleted while a write naming them is under way (PostgreSQL only:
 * two transactions at once). The deletion deletes what was the member's table
 * by table; a basket offered, a manager appointed, a subscription set between
 * the deletion's delete of that table and its commit outlived the account.
 * Each test holds the deletion after it deleted every such table (a third
 * transaction holds one of the member's queued mails, which it deletes last),
 * sends the write, and releases the deletion once the write is seen waiting
 * for it: the write is refused (409 `member.deleted`), nothing is left behind
 * (a forum subscription, the REST write's hot path, is not held: the next
 * purge deletes it).
 * Without the lock each such insert holds shared and the deletion alone
 * (migrations 073, 074), the write went through at once and its row stayed. And two operators adding one
 * address at once.
 */
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { createUser } from '../../src/accounts/accounts.service.ts';
import { deleteMember } from '../../src/accounts/member-deletion.ts';
import { InvalidInput } from '../../src/invalid-input.ts';
import { purgeExpired } from '../../src/ops/maintenance.ts';
import { purgeTasks } from '../../src/purge-tasks.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { makeRegion } from '../helpers/factories.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { whileHeld } from '../helpers/lock-waits.ts';
import { VALID_BASKET } from '../api/basket-people.ts';

const t = useTestApp();

/** Runs the member's deletion, held before its end, and `write` beside it; the write's answer. */
async function writeDuringDeletion(member: LoggedIn, write: () => Promise<{ statusCode: number; json(): unknown }>) {
  const { id: mailId } = await t.db.insertInto('mail_outbox').values({ kind: 'held', recipient: member.user.email, locale: 'de', state: 'pending' })
    .returning('id').executeTakeFirstOrThrow();
  let answer: Awaited<ReturnType<typeof write>> | undefined;
  const sides = await whileHeld(t.db, sql`select 1 from mail_outbox where id = ${mailId} for update`,
    () => deleteMember(t.db, member.user.id, t.clock.now()),
    async () => { answer = await write(); });
  expect(sides).toEqual(['done', 'done']);
  expect(await t.db.selectFrom('users').select('deleted_at').where('id', '=', member.user.id).executeTakeFirstOrThrow()).not.toEqual({ deleted_at: null });
  return answer!;
}

describe.runIf(TEST_DATABASE_URL)('a write naming a member while the member is deleted (PostgreSQL)', () => {
  test('the member\'s own basket, offered at that moment: refused, no basket left with their phone number', async () => {
    const member = await t.as('foodsharer', { firstName: 'Gone' });
    const answer = await writeDuringDeletion(member, () => t.call('POST', '/api/baskets', member, VALID_BASKET));
    expect(answer.statusCode).toBe(409);
    expect(answer.json()).toMatchObject({ status: 409, code: 'member.deleted' });
    expect(await t.db.selectFrom('baskets').select('id').where('creator_id', '=', member.user.id).execute()).toEqual([]);
  });

  test('a forum subscription set at that moment (the REST write\'s hot path, not held): gone with the next purge', async () => {
    const regionId = await makeRegion(t.db);
    const member = await t.as('foodsaver', { regionIds: [regionId] });
    const answer = await writeDuringDeletion(member,
      () => t.call('PATCH', '/api/notifications/regions', member, [{ id: regionId, notifyByEmailAboutNewThreads: true }]));
    expect(answer.statusCode).toBe(200);
    const left = () => t.db.selectFrom('forum_subscriptions').select('region_id').where('user_id', '=', member.user.id).execute();
    expect(await left()).toEqual([{ region_id: regionId }]);
    await purgeExpired(t.db, t.clock.now, purgeTasks({ auditRetentionDays: 90 }));
    expect(await left()).toEqual([]);
  });
});

describe.runIf(TEST_DATABASE_URL)('one statement naming many members (PostgreSQL)', () => {
  test('20,000 region memberships in one insert go through: the lock is one of 256 buckets, not one a member', async () => {
    const regionId = await makeRegion(t.db);
    await sql`insert into users (email, password_hash, first_name, last_name, role, verified)
      select 'bulk-' || g || '@example.org', '!', 'Bulk', 'Member', 0, false from generate_series(1, 20000) g`.execute(t.db);
    await sql`insert into region_memberships (user_id, region_id) select id, ${regionId} from users where email like 'bulk-%'`.execute(t.db);
    expect((await sql<{ n: number }>`select count(*)::int as n from region_memberships where region_id = ${regionId}`.execute(t.db)).rows[0]!.n).toBe(20000);
  });
});

describe('two operators adding the same address at once', () => {
  test('one member is added; the other is told the address is registered (truly concurrent on PostgreSQL)', async () => {
    const input = { email: 'twice.at.once@example.org', password: 'a long enough pass phrase', firstName: 'Ada', lastName: 'Twice' };
    const added = await Promise.allSettled([createUser(t.db, input), createUser(t.db, { ...input, email: 'Twice.At.Once@example.org' })]);
    expect(added.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const refused = added.find((a) => a.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(InvalidInput);
    expect((refused.reason as InvalidInput).errors).toEqual([{ field: 'email', message: 'is already registered' }]);
    expect(await t.db.selectFrom('users').select('id').where(sql`lower(email)`, '=', 'twice.at.once@example.org').execute()).toHaveLength(1);
  });
});
