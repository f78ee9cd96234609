/**
 * Disabling or deleting a member while a statement issuing them a code or a
 * grant holds their session (PostgreSQL only: the lock order is the point).
 * The status change locks the member's row, then deletes their sessions; the
 * issuing statement locks the session, then takes the key-share lock of its
 * foreign key to the member. With the member's row locked `for update` (which
 * waits for key-share locks, and is waited for by them) the two deadlocked:
 * PostgreSQL aborted one, so either the disable failed with a 500 and the
 * member stayed enabled, or the authorization or token request did. Forced
 * here: the issuing side holds the session, the status change is seen
 * waiting for it, then the issuing side inserts a code for the member.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { deleteMember } from '../../src/accounts/member-deletion.ts';
import { disableMember } from '../../src/accounts/member-status.ts';
import { s256 } from '../../src/oauth/checks/pkce.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { digestCode } from '../../src/oauth/grants/authorization-code.ts';
import { insertCode } from '../../src/oauth/grants/codes.repository.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { backendPid, untilWaitingOn } from '../helpers/lock-waits.ts';
import { CALLBACK, makeClient, TEST_VERIFIER } from '../helpers/oauth.ts';

const t = useTestApp();

const changes = {
  disabling: (userId: number) => disableMember(t.db, userId, t.clock.now()),
  deleting: (userId: number) => deleteMember(t.db, userId, t.clock.now()),
};

describe.runIf(TEST_DATABASE_URL)('a status change racing a statement that holds the member\'s session (PostgreSQL)', () => {
  test.each(Object.keys(changes))('%s: no deadlock; the code issued meanwhile is deleted with the rest', async (change) => {
    const { clientId } = await makeClient(t);
    const clientRowId = (await findClientRow(t.db, clientId))!.id;
    const user = await makeUser(t.db);
    await t.logIn(user);
    const { sid } = await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    const now = t.clock.now();
    let changed: Promise<unknown> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await sql`select sid from sessions where sid = ${sid} for key share`.execute(trx);
      changed = changes[change as keyof typeof changes](user.id);
      await untilWaitingOn(t.db, await backendPid(trx), changed);
      await insertCode(trx, {
        digest: digestCode(randomBytes(32).toString('base64url')), clientRowId, userId: user.id, redirectUri: CALLBACK, scopes: ['openid'],
        codeChallenge: s256(TEST_VERIFIER), nonce: null, authTime: now, amr: ['pwd'], acr: null, expiresAt: new Date(now.getTime() + 600_000), sid, dpopJkt: null,
      });
    });
    await expect(changed!).resolves.toBeDefined();
    const member = await t.db.selectFrom('users').select(['disabled_at', 'deleted_at']).where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(member[change === 'disabling' ? 'disabled_at' : 'deleted_at']).toEqual(expect.any(Date));
    expect(await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('oauth_codes').select('code_digest').where('user_id', '=', user.id).execute()).toEqual([]);
  });
});
