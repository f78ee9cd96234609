/**
 * Lock order (PostgreSQL only): pairs of transactions that lock the same
 * rows at the same moment — for one member, one client — must take them in
 * one order, or they wait for each other in a circle and PostgreSQL aborts
 * one (a deadlock: a 503 since the change that classifies it, a 500 before,
 * and the aborted side's work lost: a disable, a deletion, a logout rolled
 * back). Each test forces the interleaving that deadlocked before its fix
 * (a lock-order review, each case reproduced first): one side is held at the
 * point where it waited, by a third transaction holding one row or by a
 * gate in front of one statement, until the other is seen waiting for it.
 * Both must then complete.
 *
 * The order (docs/security.md, "Lock order"): the member's row; the client;
 * refresh tokens before their grants; the session before the consent, the
 * codes and the grants; a pending second step before the session it renews.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { setUserPassword } from '../../src/accounts/accounts.service.ts';
import type { AttemptCounters } from '../../src/accounts/login-attempt-counters.ts';
import { deleteMember } from '../../src/accounts/member-deletion.ts';
import { disableMember, endMemberSessions } from '../../src/accounts/member-status.ts';
import { holdPendingLogin, pendingLoginClaim } from '../../src/accounts/one-time-codes/pending-logins.ts';
import { resetPassword } from '../../src/accounts/password-reset-completion.ts';
import { storeResetToken } from '../../src/accounts/password-reset.ts';
import { SESSION_COOKIE } from '../../src/accounts/session-http.ts';
import { beginSession, endSession } from '../../src/accounts/sessions.ts';
import { s256 } from '../../src/oauth/checks/pkce.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { deleteClient } from '../../src/oauth/clients/clients.service.ts';
import { DEVICE_CODE_GRANT_TYPE } from '../../src/oauth/device-authorization/device-code.ts';
import { redeemDeviceCode } from '../../src/oauth/device-authorization/device-codes.repository.ts';
import { revokeAppAccess } from '../../src/oauth/consent/app-access.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { digestCode } from '../../src/oauth/grants/authorization-code.ts';
import { insertCode, insertCodeIfConsented, redeemCode, type NewCode } from '../../src/oauth/grants/codes.repository.ts';
import { useRefreshToken } from '../../src/oauth/grants/grants.repository.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { sessionSignedInWith } from '../helpers/session.ts';
import { backendPid, blockedBehind, gatedBeforeInsertInto, outcomes, untilBlocked, untilWaitingOn, whileHeld } from '../helpers/lock-waits.ts';
import { CALLBACK, makeClient, TEST_VERIFIER } from '../helpers/oauth.ts';

const t = useTestApp();
const clock = () => t.clock.now();

/** A member signed in (one session), a client, and codes to store for them. */
async function memberAndClient() {
  const { clientId } = await makeClient(t);
  const client = (await findClientRow(t.db, clientId))!;
  const user = await makeUser(t.db);
  const session = await t.logIn(user);
  const { sid } = await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).executeTakeFirstOrThrow();
  const now = clock();
  const code = (codeSid: string | null): NewCode => ({
    digest: digestCode(randomBytes(32).toString('base64url')), clientRowId: client.id, userId: user.id, redirectUri: CALLBACK, scopes: ['openid'],
    codeChallenge: s256(TEST_VERIFIER), nonce: null, authTime: now, amr: ['pwd'], acr: null, expiresAt: new Date(now.getTime() + 600_000), sid: codeSid, dpopJkt: null,
  });
  const cookie = new URLSearchParams(session.cookie.replaceAll('; ', '&')).get(SESSION_COOKIE)!;
  return { clientId, client, user, sid, now, code, cookie };
}

/** A grant of the member for the client under their session, with a refresh token, and the refresh that would rotate it. */
async function grantWithRefresh({ client, user, sid, now }: Pick<Awaited<ReturnType<typeof memberAndClient>>, 'client' | 'user' | 'sid' | 'now'>) {
  const grant = await t.db.insertInto('oauth_grants').values({
    client_id: client.id, user_id: user.id, scopes: ['openid'], auth_time: now, expires_at: new Date(now.getTime() + 60_000), sid, amr: ['pwd'],
  }).returning('id').executeTakeFirstOrThrow();
  const token = await t.db.insertInto('oauth_refresh_tokens').values({ grant_id: grant.id, scopes: ['openid'], expires_at: new Date(now.getTime() + 60_000) })
    .returning('id').executeTakeFirstOrThrow();
  const refresh = () => useRefreshToken(t.db, {
    rowId: token.id, clientRowId: client.id, clientVersion: client.version, now, expiresAt: new Date(now.getTime() + 30 * 24 * 3600_000),
    requiredRegions: [], clientScopes: client.scopes, requestedScopes: null, dpopJkt: null, refreshDpopJkt: null,
  });
  return { grant, refresh };
}

/**
 * Runs `first` while a third transaction holds one of the member's unused codes, so that `first` stops where
 * it deletes codes (after the sessions it deleted before them); then `second`, until it is seen waiting for
 * `first`; then lets `first` go on.
 */
async function heldAtTheCodes(held: NewCode, first: () => Promise<unknown>, second: () => Promise<unknown>): Promise<string[]> {
  await insertCode(t.db, held);
  return whileHeld(t.db, sql`select 1 from oauth_codes where code_digest = ${held.digest} for update`, first, second);
}

describe.runIf(TEST_DATABASE_URL)('transactions that lock the same rows at once complete (PostgreSQL)', () => {
  test('a member\'s deletion (the sessions, then the consents) and a code under the remembered consent (the session, then the consent)', async () => {
    const { client, user, sid, now, code } = await memberAndClient();
    await rememberConsent(t.db, user.id, client.id, ['openid'], now);
    expect(await heldAtTheCodes(code(null), () => deleteMember(t.db, user.id, now), () => insertCodeIfConsented(t.db, code(sid), client.version)))
      .toEqual(['done', 'done']);
    expect(await t.db.selectFrom('oauth_codes').select('code_digest').where('user_id', '=', user.id).execute()).toEqual([]);
  });

  test('the admin\'s "end sessions" (the sessions, then the pending second steps) and a second step renewing the browser\'s session (its pending login, then the session)', async () => {
    const { user, now, code, cookie } = await memberAndClient();
    const { password_hash: passwordHash } = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    const pending = await holdPendingLogin(t.db, clock, { userId: user.id, account: user.email, remember: false, returnTo: '/' }, passwordHash);
    expect(await heldAtTheCodes(code(null), () => endMemberSessions(t.db, user.id, now),
      () => beginSession(t.db, clock, { userId: user.id, remember: false, replacing: cookie, amr: ['pwd', 'otp'], claim: pendingLoginClaim(clock, pending) })))
      .toEqual(['done', 'done']);
  });

  test('the admin\'s "end sessions" and `user set-password` (the member, the pending second steps, then the sessions)', async () => {
    const { user, now, code } = await memberAndClient();
    const { password_hash: passwordHash } = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    await holdPendingLogin(t.db, clock, { userId: user.id, account: user.email, remember: false, returnTo: '/' }, passwordHash);
    expect(await heldAtTheCodes(code(null), () => endMemberSessions(t.db, user.id, now), () => setUserPassword(t.db, user.id, 'another long passphrase 77', now)))
      .toEqual(['done', 'done']);
  });

  test('a disable (the member, then the reset links) and a reset link redeemed (the member, then the link)', async () => {
    const { user, now, code } = await memberAndClient();
    const token = randomBytes(32).toString('base64url');
    const { password_hash: passwordHash } = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    await storeResetToken(t.db, { token, userId: user.id, passwordHash, returnTo: '/' }, now);
    const log = { info() {}, warn() {} };
    const reset = () => resetPassword(t.db, clock, { clear: async () => {} } as unknown as AttemptCounters,
      { token, newPassword: 'a completely new passphrase 42', ip: '127.0.0.1', log: log as never, mailLocale: 'de' });
    expect(await heldAtTheCodes(code(null), () => disableMember(t.db, user.id, now), reset)).toEqual(['done', 'done']);
    // The disable came first: the link died with it.
    expect((await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow()).password_hash).toBe(passwordHash);
  });

  test('a member\'s deletion (the refresh tokens, then the grants) and a refresh that extends its grant (the token, then the grant)', async () => {
    const setUp = await memberAndClient();
    const { user, now, code } = setUp;
    const { grant, refresh } = await grantWithRefresh(setUp);
    expect(await heldAtTheCodes(code(null), () => deleteMember(t.db, user.id, now), refresh)).toEqual(['done', 'done']);
    expect(await t.db.selectFrom('oauth_grants').select('id').where('id', '=', grant.id).execute()).toEqual([]);
  });

  test('a client\'s deletion (the client, then its consents) and a code under a remembered consent (the client, then the consent)', async () => {
    const { clientId, client, user, sid, now, code } = await memberAndClient();
    await rememberConsent(t.db, user.id, client.id, ['openid'], now);
    // The code's statement held after it locked the client, the session and the consent, before its insert.
    expect(await gatedBeforeInsertInto(t.db, 'oauth_codes', () => insertCodeIfConsented(t.db, code(sid), client.version), () => deleteClient(t.db, clientId)))
      .toEqual(['done', 'done']);
    expect(await findClientRow(t.db, clientId)).toBeUndefined();
  });

  test('a client\'s deletion (the client, its refresh tokens, then its grants) and a refresh (its token, then the grant)', async () => {
    const setUp = await memberAndClient();
    const { grant, refresh } = await grantWithRefresh(setUp);
    // The refresh held after it locked its token, before it inserts the successor (and locks the grant).
    expect(await gatedBeforeInsertInto(t.db, 'oauth_refresh_tokens', refresh, () => deleteClient(t.db, setUp.clientId))).toEqual(['done', 'done']);
    expect(await t.db.selectFrom('oauth_grants').select('id').where('id', '=', grant.id).execute()).toEqual([]);
  });

  test('a client\'s deletion (the client, its refresh tokens, then its codes and grants) and an exchange of its code (the client, the session, then the code)', async () => {
    const { clientId, client, sid, now, code } = await memberAndClient();
    const stored = code(sid);
    await insertCode(t.db, stored);
    const exchange = () => redeemCode(t.db, {
      digest: stored.digest, clientRowId: client.id, clientVersion: client.version, redirectUri: CALLBACK, challenge: stored.codeChallenge, now,
      grantExpiresAt: new Date(now.getTime() + 60_000), refreshExpiresAt: new Date(now.getTime() + 60_000), dpopJkt: null, refreshDpopJkt: null, clientScopes: client.scopes, requiredRegions: [],
    });
    // The exchange held after it marked its code, before it inserts the grant.
    expect(await gatedBeforeInsertInto(t.db, 'oauth_grants', exchange, () => deleteClient(t.db, clientId))).toEqual(['done', 'done']);
    expect(await findClientRow(t.db, clientId)).toBeUndefined();
    expect(await t.db.selectFrom('oauth_grants').select('id').where('client_id', '=', client.id).execute()).toEqual([]);
  });

  test('a passkey removed (the member, the passkey, then the member\'s other sessions) and an app\'s code exchanged under one of them (the session, then rows naming the member)', async () => {
    const { client, user, sid, now, code } = await memberAndClient();
    const { id: passkeyId } = await t.db.insertInto('passkeys').values({
      user_id: user.id, credential_id: `lock-${user.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).returning('id').executeTakeFirstOrThrow();
    const remover = await sessionSignedInWith(t.db, clock, user.id, ['pwd', 'otp', 'mfa']);
    const stored = code(sid);
    await insertCode(t.db, stored);
    const remove = async () => {
      const answer = await t.app.inject({
        method: 'POST', url: '/settings/security/passkeys/remove', payload: new URLSearchParams({ csrf_token: remover.csrfToken, id: String(passkeyId) }).toString(),
        headers: { cookie: remover.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (answer.statusCode !== 303) throw new Error(`${answer.statusCode}`);
    };
    const exchange = () => redeemCode(t.db, {
      digest: stored.digest, clientRowId: client.id, clientVersion: client.version, redirectUri: CALLBACK, challenge: stored.codeChallenge, now,
      grantExpiresAt: new Date(now.getTime() + 60_000), refreshExpiresAt: new Date(now.getTime() + 60_000), dpopJkt: null, refreshDpopJkt: null, clientScopes: client.scopes, requiredRegions: [],
    });
    // The removal held where it deletes the passkey, the member's row already locked.
    expect(await whileHeld(t.db, sql`select 1 from passkeys where id = ${passkeyId} for update`, remove, exchange)).toEqual(['done', 'done']);
    // The session ended with the removal, and the grant signed in from it with the session.
    expect(await t.db.selectFrom('sessions').select('sid').where('sid', '=', sid).execute()).toEqual([]);
    expect(await t.db.selectFrom('oauth_grants').select('revoked_at').where('sid', '=', sid).execute()).toEqual([{ revoked_at: expect.any(Date) }]);
  });

  test('a client\'s deletion and a device\'s poll redeeming its approved code (the client, the session, then the device code)', async () => {
    const { clientId, client, user, sid, now } = await memberAndClient();
    const digest = randomBytes(32);
    await t.db.insertInto('oauth_device_codes').values({
      device_code_digest: digest, user_code_digest: randomBytes(32), client_id: client.id, scopes: ['openid'], status: 'approved',
      expires_at: new Date(now.getTime() + 600_000), user_id: user.id, auth_time: now, sid,
    }).execute();
    const poll = () => redeemDeviceCode(t.db, {
      digest, clientRowId: client.id, clientVersion: client.version, now, grantExpiresAt: new Date(now.getTime() + 60_000), refreshExpiresAt: null, refreshDpopJkt: null,
      clientScopes: client.scopes, requiredRegions: [],
    });
    expect(await gatedBeforeInsertInto(t.db, 'oauth_grants', poll, () => deleteClient(t.db, clientId))).toEqual(['done', 'done']);
    expect(await t.db.selectFrom('oauth_grants').select('id').where('client_id', '=', client.id).execute()).toEqual([]);
  });

  test('a consent remembered while its client is being deleted: nothing stored, not a foreign-key failure', async () => {
    const { client, user, now } = await memberAndClient();
    let remembered: Promise<unknown> | undefined;
    await t.db.transaction().execute(async (deletion) => {
      await deletion.deleteFrom('oauth_clients').where('id', '=', client.id).execute();
      remembered = rememberConsent(t.db, user.id, client.id, ['openid'], now);
      remembered.catch(() => {});
      await untilWaitingOn(t.db, await backendPid(deletion), remembered);
    });
    expect(await outcomes(remembered!)).toEqual(['done']);
    expect(await t.db.selectFrom('oauth_consents').select('user_id').where('user_id', '=', user.id).execute()).toEqual([]);
  });

  test.each([
    ['a pushed authorization request', '/oauth/par', new URLSearchParams({ response_type: 'code', redirect_uri: CALLBACK, scope: 'openid', code_challenge_method: 'S256', code_challenge: s256(TEST_VERIFIER) }).toString()],
    ['a device authorization', '/oauth/device_authorization', 'scope=openid'],
  ])('%s while its client is being deleted: 503 "try again", nothing stored, not a foreign-key failure (500)', async (_name, path, form) => {
    const { clientId, secret } = await makeClient(t, { grantTypes: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT_TYPE] });
    const client = (await findClientRow(t.db, clientId))!;
    let answer: Promise<{ statusCode: number; body: string }> | undefined;
    // The deletion under way: the client's row deleted, not yet committed; the request reads the client as it was.
    await t.db.transaction().execute(async (deletion) => {
      await deletion.deleteFrom('oauth_clients').where('id', '=', client.id).execute();
      answer = t.app.inject({
        method: 'POST', url: path, payload: `${form}&client_id=${clientId}&client_secret=${secret}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      await untilWaitingOn(t.db, await backendPid(deletion), answer);
    });
    const response = await answer!;
    expect({ status: response.statusCode, body: JSON.parse(response.body) }).toEqual({
      status: 503, body: { error: 'temporarily_unavailable', error_description: 'The client registration changed during the request; try again.' },
    });
    expect(await t.db.selectFrom('oauth_pushed_requests').select('client_id').where('client_id', '=', client.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('oauth_device_codes').select('client_id').where('client_id', '=', client.id).execute()).toEqual([]);
  });

  test('a disable (the member, its sessions and their sign-ins, then grants and codes) and the member revoking an app (the member first now)', async () => {
    const { client, clientId, user, sid, now, code } = await memberAndClient();
    const { grant } = await grantWithRefresh({ client, user, sid, now });
    await t.db.insertInto('oauth_session_clients').values({ sid, client_id: client.id, user_id: user.id }).execute();
    await insertCode(t.db, code(null));
    let disabled: Promise<unknown> | undefined;
    let revoked: Promise<unknown> | undefined;
    await t.db.transaction().execute(async (holder) => {
      // The grant's row held: the disable stops where it revokes the session's grants, its sessions (and sign-ins) deleted.
      await sql`select 1 from oauth_grants where id = ${grant.id} for update`.execute(holder);
      disabled = disableMember(t.db, user.id, now);
      disabled.catch(() => {});
      const disablerPid = await blockedBehind(t.db, await backendPid(holder));
      revoked = revokeAppAccess(t.db, clock, user.id, clientId);
      revoked.catch(() => {});
      await untilBlocked(t.db, revoked, [disablerPid]);
    });
    expect(await outcomes(disabled!, revoked!)).toEqual(['done', 'done']);
  });

  test('a logout (the session and its sign-ins, then its grants) and the member revoking the app (its sign-ins, then its grants)', async () => {
    const { client, clientId, user, sid, now, cookie } = await memberAndClient();
    const { grant } = await grantWithRefresh({ client, user, sid, now });
    await t.db.insertInto('oauth_session_clients').values({ sid, client_id: client.id, user_id: user.id }).execute();
    let revoked: Promise<unknown> | undefined;
    let loggedOut: Promise<unknown> | undefined;
    await t.db.transaction().execute(async (holder) => {
      // The grant's row held: the revocation stops where it revokes it, the logout too, or behind the revocation.
      await sql`select 1 from oauth_grants where id = ${grant.id} for update`.execute(holder);
      const holderPid = await backendPid(holder);
      revoked = revokeAppAccess(t.db, clock, user.id, clientId);
      revoked.catch(() => {});
      const revokerPid = await blockedBehind(t.db, holderPid);
      loggedOut = endSession(t.db, cookie, now);
      loggedOut.catch(() => {});
      await untilBlocked(t.db, loggedOut, [holderPid, revokerPid]);
    });
    expect(await outcomes(revoked!, loggedOut!)).toEqual(['done', 'done']);
    expect(await t.db.selectFrom('oauth_grants').select('revoked_at').where('id', '=', grant.id).execute()).toEqual([{ revoked_at: expect.any(Date) }]);
  });

  test('two sign-ins of one member in one browser at once, each renewing the same session: both complete', async () => {
    const { user, cookie } = await memberAndClient();
    const { password_hash: passwordHash } = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    const begin = (db: typeof t.db) => beginSession(db, clock, { userId: user.id, remember: false, replacing: cookie, amr: ['pwd'], passwordHash });
    let second: Promise<unknown> | undefined;
    await t.db.transaction().execute(async (trx) => {
      expect(await begin(trx as unknown as typeof t.db)).toHaveProperty('sid');
      second = begin(t.db);
      second.catch(() => {});
      await untilWaitingOn(t.db, await backendPid(trx), second);
    });
    expect(await outcomes(second!)).toEqual(['done']);
  });
});
