/**
 * Key rotation (SPEC §5.6) is all or nothing: when the new key cannot be
 * stored, the current key stays active, so the server can always sign.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, test } from 'vitest';
import { bootstrapSigningKey, rotateSigningKey } from '../../src/oauth/keys/signing-keys.ts';
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
      await expect(rotateSigningKey(t.db, t.keys, 2048, t.clock.now())).rejects.toThrow(/no room for a key/);
    } finally {
      await sql`drop trigger refuse_signing_key on oauth_signing_keys`.execute(t.db);
      await sql`drop function refuse_signing_key()`.execute(t.db);
    }
    expect(await activeKids()).toEqual(before);
    expect(await t.db.selectFrom('oauth_signing_keys').select('kid').where('retired_at', 'is not', null).execute()).toEqual([]);
  });

  test('a successful rotation retires the old key of every algorithm and activates a new one of each together', async () => {
    const old = await activeKids();
    const { activated, retired } = await rotateSigningKey(t.db, t.keys, 2048, t.clock.now());
    expect(retired.sort()).toEqual(old.sort());
    expect((await activeKids()).sort()).toEqual(Object.values(activated).sort());
    const algs = await t.db.selectFrom('oauth_signing_keys').select(['kid', 'alg']).where('retired_at', 'is', null).execute();
    expect(Object.fromEntries(algs.map((k) => [k.alg, k.kid]))).toEqual(activated);
  });
});
