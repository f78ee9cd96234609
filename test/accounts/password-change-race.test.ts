/**
 * A sign-in with the old password racing a change of the password
 * (docs/security.md, "A sign-in racing a password change"): once the change
 * has committed, nothing got with the old password works, whichever came
 * first. A burst through the real endpoints (truly concurrent on PostgreSQL,
 * serial on PGlite); then, on PostgreSQL, each interleaving forced by holding
 * one side's transaction open until the other is seen waiting for it. Before
 * the sign-in held the member's row, a session begun between the change's
 * update and its commit outlived the change; so did a second step held, or
 * completed, meanwhile.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { setUserPassword } from '../../src/accounts/accounts.service.ts';
import { dropPendingLogins } from '../../src/accounts/one-time-codes/pending-logins.ts';
import { storeResetToken } from '../../src/accounts/password-reset.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { beginSession, randomToken } from '../../src/accounts/sessions.ts';
import { updatePasswordHash } from '../../src/accounts/users.repository.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { backendPid, untilWaitingOn } from '../helpers/lock-waits.ts';
import { codeAt, enrol, passwordStep, postForm, secondStep } from '../helpers/one-time-codes.ts';
import type { TestSession } from '../helpers/session.ts';

const NEW_PASSWORD = 'a quite different passphrase 81';
const WRONG = { status: 401, code: 'auth.invalid-credentials' };

const t = useTestApp();

const apiLogin = (user: TestUser) => t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password } });
const current = (cookie: string) => t.app.inject({ url: '/api/user/current', headers: { cookie } });
const cookieOf = (response: { cookies: Array<{ name: string; value: string }> }) => response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
const sessionsOf = (userId: number) => t.db.selectFrom('sessions').select('sid').where('user_id', '=', userId).execute();
const passwordHashOf = async (userId: number) => (await t.db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow()).password_hash;

describe('sign-ins with the old password while the member changes it', () => {
  test('a burst of logins around the change at /settings/security: afterwards no session got with the old password works', async () => {
    const user = await makeUser(t.db);
    const changer = await t.logIn(user);
    const change = () => postForm(t.app, '/settings/security/password', changer.cookie, {
      csrf_token: changer.csrfToken, current_password: user.password, new_password: NEW_PASSWORD,
    });
    const [changed, ...logins] = await Promise.all([change(), ...Array.from({ length: 8 }, () => apiLogin(user))]);
    expect(changed.statusCode).toBe(303);
    for (const login of logins.filter((l) => l.statusCode === 200)) expect((await current(cookieOf(login))).statusCode).toBe(401);
    // The changing session stays (under a new id); nothing else of the member is left.
    expect(await sessionsOf(user.id)).toHaveLength(1);
  });
});

describe.runIf(TEST_DATABASE_URL)('a change at /settings/security overtaken while it checks the current password (PostgreSQL)', () => {
  const changeAt = (session: TestSession, user: TestUser) => postForm(t.app, '/settings/security/password', session.cookie, {
    csrf_token: session.csrfToken, current_password: user.password, new_password: 'the changer wanted this one 7',
  });

  test.each([
    ['a reset link sets a password (and ends every session)', true, true],
    ['the admin ends the member\'s sessions', false, true],
    ['another tab of this session changes it first (the session stays)', true, false],
  ] as const)('%s while the change waits: the change writes nothing', async (_by, resets, ends) => {
    const user = await makeUser(t.db);
    const changer = await t.logIn(user);
    const before = await passwordHashOf(user.id);
    const failedTries = async () => (await t.db.selectFrom('login_throttle').select(['key', 'failures']).where('failures', '>', 0).orderBy('key').execute());
    const triedBefore = await failedTries();
    const resetHash = await hashPassword(NEW_PASSWORD);
    let changed: ReturnType<typeof changeAt> | undefined;
    // The other side under way: the member's row held first, as a reset and the admin's "end sessions" hold it.
    await t.db.transaction().execute(async (other) => {
      await other.selectFrom('users').select('id').where('id', '=', user.id).forNoKeyUpdate().execute();
      if (resets) await updatePasswordHash(other, user.id, resetHash);
      if (ends) await other.deleteFrom('sessions').where('user_id', '=', user.id).execute();
      changed = changeAt(changer, user);
      await untilWaitingOn(t.db, await backendPid(other), changed);
    });
    const answer = await changed!;
    // A session ended meanwhile is sent to the login, shown nothing; one still live is told why.
    if (ends) expect([answer.statusCode, answer.headers.location]).toEqual([303, '/login']);
    else expect([answer.statusCode, answer.body.includes('Hier wurde nichts geändert.')]).toEqual([409, true]);
    expect(await passwordHashOf(user.id)).toBe(resets ? resetHash : before);
    expect(await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email).execute()).toEqual([]);
    // The current password was right: the change's try is not left counted as a failed login.
    expect(await failedTries()).toEqual(triedBefore);
    // The reset's password signs in; the one the change wanted does not.
    expect((await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: 'the changer wanted this one 7' } })).statusCode).toBe(401);
  });
});

describe('a second step begun with the old password', () => {
  let member: TestUser;
  let secret: string;
  let session: TestSession;
  beforeAll(async () => {
    member = await makeUser(t.db);
    ({ secret, session } = await enrol(t.app, await t.logIn(member), t.clock.now()));
  });

  const changes = {
    'the member at /settings/security': async () => {
      const changed = await postForm(t.app, '/settings/security/password', session.cookie, {
        csrf_token: session.csrfToken, current_password: member.password, new_password: NEW_PASSWORD,
      });
      expect(changed.statusCode).toBe(303);
    },
    'user set-password': async () => { expect(await setUserPassword(t.db, member.id, NEW_PASSWORD, t.clock.now())).toBeDefined(); },
    'a reset link': async () => {
      const token = randomToken();
      await storeResetToken(t.db, { token, userId: member.id, passwordHash: await passwordHashOf(member.id), returnTo: '/' }, t.clock.now());
      const form = await t.app.inject({ url: `/password/reset/${token}` });
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(form.body)![1]!;
      const reset = await postForm(t.app, `/password/reset/${token}`, cookieOf(form), { csrf_token: csrf, new_password: NEW_PASSWORD });
      expect(reset.statusCode).toBe(303);
    },
  };
  test.each(Object.keys(changes))('ends with a change by %s: the right code then begins no session', async (by) => {
    t.clock.advance(30);
    const step = await passwordStep(t.app, member);
    expect(step.response.statusCode).toBe(303);
    await changes[by as keyof typeof changes]();
    const left = await sessionsOf(member.id);
    t.clock.advance(30);
    const done = await secondStep(t.app, step, codeAt(secret, t.clock.now()));
    expect({ status: done.statusCode, location: done.headers.location }).toEqual({ status: 303, location: '/login' });
    expect(await sessionsOf(member.id)).toEqual(left);
    await setUserPassword(t.db, member.id, member.password, t.clock.now());
  });
});

describe.runIf(TEST_DATABASE_URL)('each interleaving, forced (PostgreSQL)', () => {
  /** Runs `work` in a transaction that first sets a new password, held open until `other` (started inside it) waits for it. */
  async function changingWhile<T>(user: TestUser, other: () => Promise<T>): Promise<T> {
    let started: Promise<T> | undefined;
    const passwordHash = await hashPassword(NEW_PASSWORD);
    await t.db.transaction().execute(async (trx) => {
      await updatePasswordHash(trx, user.id, passwordHash);
      await dropPendingLogins(trx, user.id);
      started = other();
      await untilWaitingOn(t.db, await backendPid(trx), started);
    });
    return started!;
  }

  test('the change holds the member first: a login with the old password waits, then is refused, and begins no session', async () => {
    const user = await makeUser(t.db);
    const login = await changingWhile(user, () => apiLogin(user));
    expect({ status: login.statusCode, code: (login.json() as { code?: string }).code }).toEqual(WRONG);
    expect(await sessionsOf(user.id)).toEqual([]);
    // Recorded as a refused login, with why.
    await t.app.securityEvents.settled();
    const failed = await t.db.selectFrom('security_events').select('details').where('user_id', '=', user.id).where('event', '=', 'account.login.failed').execute();
    expect(failed.map((e) => (e.details as { reason?: string }).reason)).toEqual(['lapsed']);
  });

  test('the sign-in holds the member first: the change waits for it, then ends the session it began', async () => {
    const user = await makeUser(t.db);
    const oldHash = await passwordHashOf(user.id);
    let changed: ReturnType<typeof setUserPassword> | undefined;
    await t.db.transaction().execute(async (trx) => {
      expect(await beginSession(trx, t.clock.now, { userId: user.id, remember: false, amr: ['pwd'], passwordHash: oldHash })).toHaveProperty('sid');
      changed = setUserPassword(t.db, user.id, NEW_PASSWORD, t.clock.now());
      await untilWaitingOn(t.db, await backendPid(trx), changed);
    });
    expect(await changed!).toMatchObject({ sessionsEnded: 1 });
    expect(await sessionsOf(user.id)).toEqual([]);
  });

  describe('with a second factor', () => {
    let member: TestUser;
    let secret: string;
    beforeAll(async () => {
      member = await makeUser(t.db);
      ({ secret } = await enrol(t.app, await t.logIn(member), t.clock.now()));
      t.clock.advance(30);
      await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute();
    });

    test('the change holds the member first: the password step waits, then is refused, and holds no second step', async () => {
      const step = await changingWhile(member, () => passwordStep(t.app, member));
      expect(step.response.statusCode).toBe(401);
      expect(step.response.body).toContain('E-Mail-Adresse oder Passwort ist falsch.');
      expect(await t.db.selectFrom('pending_logins').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
      await setUserPassword(t.db, member.id, member.password, t.clock.now());
    });

    test('a second step held before the change: its completion waits, finds it gone, and begins no session', async () => {
      const step = await passwordStep(t.app, member);
      expect(step.response.statusCode).toBe(303);
      t.clock.advance(30);
      const done = await changingWhile(member, () => secondStep(t.app, step, codeAt(secret, t.clock.now())));
      expect({ status: done.statusCode, location: done.headers.location }).toEqual({ status: 303, location: '/login' });
      expect(await sessionsOf(member.id)).toEqual([]);
      await setUserPassword(t.db, member.id, member.password, t.clock.now());
    });
  });
});
