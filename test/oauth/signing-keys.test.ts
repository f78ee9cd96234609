/**
 * Key rotation (SPEC §5.6) is all or nothing: when the new key cannot be
 * stored, the current key stays active, so the server can always sign.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, test } from 'vitest';
import { KEY_PUBLISH_LEAD_SECONDS, KeyStore } from '../../src/oauth/keys/key-store.ts';
import { bootstrapSigningKey, rotateSigningKey, type Rotation } from '../../src/oauth/keys/signing-keys.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { backendPid, blockedBehind } from '../helpers/lock-waits.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { useTestApp } from '../helpers/fixture.ts';

const t = useTestApp();
beforeAll(async () => {
  await bootstrapSigningKey(t.db, t.keys, t.clock.now());
});

const activeKids = async () => (await t.db.selectFrom('oauth_signing_keys').select('kid').where('retired_at', 'is', null).execute()).map((r) => r.kid);

describe('rotateSigningKey', () => {
  test('a failed insert of the new key leaves the current key active and nothing retired', async () => {
    const before = await activeKids();
    expect(before).toHaveLength(3); // one of each algorithm
    // A real failure of the database at the insert (disk full, a lost connection): a trigger that refuses it.
    await sql`create function refuse_signing_key() returns trigger language plpgsql as $$ begin raise exception 'no room for a key'; end $$`.execute(t.db);
    await sql`create trigger refuse_signing_key before insert on oauth_signing_keys for each row execute function refuse_signing_key()`.execute(t.db);
    try {
      await expect(rotateSigningKey(t.db, t.keys, 2048, t.clock.now)).rejects.toThrow(/no room for a key/);
    } finally {
      await sql`drop trigger refuse_signing_key on oauth_signing_keys`.execute(t.db);
      await sql`drop function refuse_signing_key()`.execute(t.db);
    }
    expect(await activeKids()).toEqual(before);
    expect(await t.db.selectFrom('oauth_signing_keys').select('kid').where('retired_at', 'is not', null).execute()).toEqual([]);
  });

  test('a successful rotation retires the old key of every algorithm and activates a new one of each together', async () => {
    const old = await activeKids();
    const { activated, retired } = await rotateSigningKey(t.db, t.keys, 2048, t.clock.now);
    expect(retired.sort()).toEqual(old.sort());
    expect((await activeKids()).sort()).toEqual(Object.values(activated).sort());
    const algs = await t.db.selectFrom('oauth_signing_keys').select(['kid', 'alg']).where('retired_at', 'is', null).execute();
    expect(Object.fromEntries(algs.map((k) => [k.alg, k.kid]))).toEqual(activated);
  });
});

describe('a rotation with a publishing lead (`keys rotate` on PostgreSQL)', () => {
  test('publishes the new keys at once, signs with the old ones until the lead has passed, then with the new ones without a reload', async () => {
    const clock = new FrozenClock(t.clock.now());
    const store = new KeyStore(t.db, t.keys, clock.now);
    const old = (await store.signer('ES256')).kid;
    const { activated, retired, activeFrom } = await rotateSigningKey(t.db, t.keys, 2048, clock.now, undefined, KEY_PUBLISH_LEAD_SECONDS);
    expect(activeFrom.getTime() - clock.now().getTime()).toBe(KEY_PUBLISH_LEAD_SECONDS * 1000);
    expect(retired).toContain(old);
    await store.invalidate(); // what the database's notification does
    const published = () => store.jwks().then((body) => (JSON.parse(body) as { keys: { kid: string }[] }).keys.map((k) => k.kid));
    expect(await published()).toEqual(expect.arrayContaining([...Object.values(activated), old]));
    expect((await store.signer('ES256')).kid).toBe(old);
    expect((await store.signer('RS256')).kid).not.toBe(activated.RS256);
    expect(await store.verificationKey(activated.ES256)).toBeDefined();

    clock.advance(KEY_PUBLISH_LEAD_SECONDS - 1);
    expect((await store.signer('ES256')).kid).toBe(old);
    clock.advance(1);
    expect((await store.signer('ES256')).kid).toBe(activated.ES256);
    expect((await store.signer('RS256')).kid).toBe(activated.RS256);
    expect((await store.signer('EdDSA')).kid).toBe(activated.EdDSA);
    // The old key stays published for its tokens.
    expect(await published()).toEqual(expect.arrayContaining([...Object.values(activated), old]));
  });

  test.skipIf(TEST_DATABASE_URL === undefined)('PostgreSQL: the lead counts from after a wait for the current keys, not from the command\'s start', async () => {
    const clock = new FrozenClock(t.clock.now());
    let rotation!: Promise<Rotation>;
    await t.db.transaction().execute(async (holder) => {
      await sql`select kid from oauth_signing_keys where retired_at is null for update`.execute(holder);
      rotation = rotateSigningKey(t.db, t.keys, 2048, clock.now, undefined, KEY_PUBLISH_LEAD_SECONDS);
      rotation.catch(() => {});
      await blockedBehind(t.db, await backendPid(holder));
      clock.advance(KEY_PUBLISH_LEAD_SECONDS * 2); // a wait longer than the lead: counted from its start, the keys would sign at once
    });
    expect((await rotation).activeFrom.getTime()).toBe(clock.now().getTime() + KEY_PUBLISH_LEAD_SECONDS * 1000);
  });
});
