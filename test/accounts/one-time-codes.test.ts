/**
 * One-time codes as a second factor (RFC 6238): enrolment confirmed by a
 * first code, the second step of the login (no session before it), recovery
 * codes usable once, replayed codes refused, wrong codes counted by the login
 * throttle, turning codes off only with a current code. Codes are computed by
 * otpauth from the secret the page shows. Real database, app.inject().
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseAttemptCounters, type AttemptCounters } from '../../src/accounts/login-attempt-counters.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { backendPid, gatedBeforeInsertInto, untilWaitingOn } from '../helpers/lock-waits.ts';
import { renewedSession, type TestSession } from '../helpers/session.ts';
import { HostileProbe } from '../helpers/hostile-probe.ts';
import { codeAt, enrol, passwordStep, postForm, secondStep, sessionCookieOf, startEnrolment } from '../helpers/one-time-codes.ts';

const clock = new FrozenClock(new Date('2026-03-02T09:00:10Z'));
/** Run once, when a right code next clears the login throttle's counters: between a code's check and the change it allows. */
let afterCodeChecked: (() => Promise<void>) | undefined;
const throttleStore = (): AttemptCounters => databaseAttemptCounters(t.db);
const t = useTestApp({
  clock,
  attempts: {
    reserve: (key, policy, now) => throttleStore().reserve(key, policy, now),
    giveBack: (key, counted) => throttleStore().giveBack(key, counted),
    async clear(key) {
      await throttleStore().clear(key);
      const then = afterCodeChecked;
      afterCodeChecked = undefined;
      await then?.();
    },
  },
});

const sessionsOf = async (userId: number) => t.db.selectFrom('sessions').select(['sid', 'amr']).where('user_id', '=', userId).execute();
const regenerate = (session: TestSession, code: string) =>
  postForm(t.app, '/settings/security/one-time-codes/recovery-codes', session.cookie, { csrf_token: session.csrfToken, code });
const turnOff = (session: TestSession, code: string) =>
  postForm(t.app, '/settings/security/one-time-codes/disable', session.cookie, { csrf_token: session.csrfToken, code });
const mailsTo = async (email: string) => (await t.db.selectFrom('mail_outbox').select('kind').where('recipient', '=', email).orderBy('id').execute()).map((m) => m.kind);

describe('enrolment on /settings/security', () => {
  let member: TestUser;
  beforeAll(async () => { member = await makeUser(t.db); });

  it('shows a QR code (inline SVG) and the secret; a wrong code is refused, the right one turns codes on and shows ten recovery codes once', async () => {
    const session = await t.logIn(member);
    const before = await t.app.inject({ url: '/settings/security', headers: { cookie: session.cookie } });
    expect(before.body).toContain('Einmalcodes einrichten');
    const secret = await startEnrolment(t.app, session);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const page = await t.app.inject({ url: '/settings/security', headers: { cookie: session.cookie } });
    expect(page.body).toMatch(/<div class="qr-code" role="img" aria-label="QR-Code für deine Authenticator-App"><svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const stored = await t.db.selectFrom('one_time_code_secrets').selectAll().where('user_id', '=', member.id).executeTakeFirstOrThrow();
    expect(stored.enabled_at).toBeNull();
    expect(stored.secret.toString('latin1')).not.toContain(secret);

    const wrong = await postForm(t.app, '/settings/security/one-time-codes/confirm', session.cookie, { csrf_token: session.csrfToken, code: '000000' === codeAt(secret, clock.now()) ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(400);
    // Beside the field it is about, which points to it.
    expect(wrong.body).toContain('aria-describedby="otp-setup-intro otp-error" aria-invalid="true">\n    <p class="field-error" role="alert" id="otp-error" tabindex="-1" autofocus>Dieser Code stimmt nicht oder wurde schon benutzt.</p>');
    expect((await t.db.selectFrom('one_time_code_secrets').select('enabled_at').where('user_id', '=', member.id).executeTakeFirstOrThrow()).enabled_at).toBeNull();

    const right = await postForm(t.app, '/settings/security/one-time-codes/confirm', session.cookie, { csrf_token: session.csrfToken, code: codeAt(secret, clock.now()) });
    expect(right.statusCode).toBe(200);
    const codes = [...right.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(10);
    expect(codes.every((c) => /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/.test(c))).toBe(true);
    expect(right.body).toContain('download="recovery-codes.txt"');
    expect(right.body).toContain(`href="data:text/plain;charset=utf-8,${encodeURIComponent(`${codes.join('\r\n')}\r\n`)}"`);
    const digests = await t.db.selectFrom('recovery_codes').select(['code_digest', 'used_at']).where('user_id', '=', member.id).execute();
    expect(digests).toHaveLength(10);
    expect(digests.some((d) => d.code_digest.toString('latin1').includes(codes[0]!))).toBe(false);
    expect(await mailsTo(member.email)).toEqual(['one-time-codes-enabled']);
    // The session has proved a code besides its password: two factors, under a new id (the old one signs in no more).
    const renewed = renewedSession(session, right);
    expect(right.body).toContain(`name="csrf_token" value="${renewed.csrfToken}"`);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } })).statusCode).toBe(401);
    expect((await t.db.selectFrom('sessions').select('amr').where('user_id', '=', member.id).executeTakeFirstOrThrow()).amr).toEqual(['pwd', 'otp', 'mfa']);

    // The browser's Back sends the confirmed form again, under the renewed session with the form's old token:
    // the page as it is now, not "the form expired" (a reload would send the same form again), and nothing changed.
    const again = await postForm(t.app, '/settings/security/one-time-codes/confirm', renewed.cookie, { csrf_token: session.csrfToken, code: codeAt(secret, clock.now()) });
    expect({ status: again.statusCode, location: again.headers.location }).toEqual({ status: 303, location: '/settings/security#one-time-codes' });
    expect(await t.db.selectFrom('recovery_codes').select(['code_digest', 'used_at']).where('user_id', '=', member.id).execute()).toEqual(digests);
    // Before the codes are on, a stale form is still refused as one.
    const other = await t.logIn(await makeUser(t.db));
    const stale = await postForm(t.app, '/settings/security/one-time-codes/confirm', other.cookie, { csrf_token: session.csrfToken, code: '123456' });
    expect(stale.statusCode).toBe(403);
    expect(stale.body).toContain('Das Formular ist abgelaufen.');

    // Shown once: the page afterwards counts them, and shows no secret.
    const after = await t.app.inject({ url: '/settings/security', headers: { cookie: renewed.cookie } });
    expect(after.body).toContain('Einmalcodes sind eingeschaltet. Dir bleiben 10 unbenutzte Wiederherstellungscodes.');
    expect(after.body).not.toContain(codes[0]!);
    expect(after.body).not.toContain('otp-secret');
  });

  it('refuses a form without its CSRF token and changes nothing', async () => {
    const other = await makeUser(t.db);
    const session = await t.logIn(other);
    const response = await postForm(t.app, '/settings/security/one-time-codes/start', session.cookie, { csrf_token: 'wrong' });
    expect(response.statusCode).toBe(403);
    expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', other.id).execute()).toEqual([]);
  });
});

describe('login with a second factor', () => {
  let member: TestUser;
  let secret: string;
  let recoveryCodes: string[];
  beforeAll(async () => {
    member = await makeUser(t.db);
    ({ secret, recoveryCodes } = await enrol(t.app, await t.logIn(member), clock.now()));
    clock.advance(30);
    await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute();
  });

  it('the password step starts no session; the right code does, with amr pwd otp mfa, and goes where the login was going', async () => {
    const step = await passwordStep(t.app, member, '/settings/apps');
    expect(step.response.statusCode).toBe(303);
    expect(step.response.headers.location).toBe('/login/second-factor');
    expect(step.response.cookies.map((c) => c.name)).toEqual(['fs_pending_login']);
    expect(await sessionsOf(member.id)).toEqual([]);
    const page = await t.app.inject({ url: '/login/second-factor', headers: { cookie: step.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('autocomplete="one-time-code"');
    expect(page.body).not.toContain('data-passkey-login');

    const done = await secondStep(t.app, step, codeAt(secret, clock.now()));
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/settings/apps');
    expect(await sessionsOf(member.id)).toEqual([{ sid: expect.any(String), amr: ['pwd', 'otp', 'mfa'] }]);
    const current = await t.app.inject({ url: '/api/user/current', headers: { cookie: sessionCookieOf(done) } });
    expect(current.statusCode).toBe(200);
    // The pending login was used up.
    expect(await t.db.selectFrom('pending_logins').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
  });

  it('refuses a code already used in its time window (replay)', async () => {
    const code = codeAt(secret, clock.now());
    const step = await passwordStep(t.app, member);
    const replay = await secondStep(t.app, step, code);
    expect(replay.statusCode).toBe(401);
    expect(replay.body).toContain('Dieser Code stimmt nicht oder wurde schon benutzt.');
    clock.advance(30);
    expect((await secondStep(t.app, step, codeAt(secret, clock.now()))).statusCode).toBe(303);
  });

  it('a recovery code signs in once; the second use is refused; the member is told by mail', async () => {
    await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute();
    const first = await passwordStep(t.app, member);
    const used = await secondStep(t.app, first, recoveryCodes[0]!.toUpperCase());
    expect(used.statusCode).toBe(303);
    expect(await sessionsOf(member.id)).toEqual([{ sid: expect.any(String), amr: ['pwd', 'otp', 'mfa'] }]);
    expect(await mailsTo(member.email)).toEqual(['one-time-codes-enabled', 'recovery-code-used']);
    const again = await passwordStep(t.app, member);
    expect((await secondStep(t.app, again, recoveryCodes[0]!)).statusCode).toBe(401);
    expect((await t.db.selectFrom('recovery_codes').select('used_at').where('user_id', '=', member.id).where('used_at', 'is not', null).execute())).toHaveLength(1);
  });

  it('without a pending login the second step sends to the login page; the JSON login refuses a member with a second factor', async () => {
    expect((await t.app.inject({ url: '/login/second-factor' })).headers.location).toBe('/login');
    const api = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: member.email, password: member.password } });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toMatchObject({ code: 'auth.second-factor-required', detail: 'This account has a second factor: log in at http://localhost:8080/login.' });
    expect(api.cookies.filter((c) => c.name === 'fs_session')).toEqual([]);
  });

  it('counts wrong codes toward the login throttle of the account', async () => {
    const other = await makeUser(t.db);
    const { secret: otherSecret } = await enrol(t.app, await t.logIn(other), clock.now());
    clock.advance(30);
    await t.db.deleteFrom('sessions').where('user_id', '=', other.id).execute();
    const step = await passwordStep(t.app, other);
    const statuses: number[] = [];
    for (const code of ['123456', 'aaaa-bbbb-cccc', '12345', '654321', '111111']) statuses.push((await secondStep(t.app, step, code)).statusCode);
    // The password counted once (its success is not one before the second factor), then four wrong codes: the fifth failure waits.
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const throttled = await secondStep(t.app, step, codeAt(otherSecret, clock.now()));
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('60');
    expect(throttled.body).toContain('Zu viele fehlgeschlagene Anmeldungen. Bitte versuche es in einer Minute erneut.');
    expect(await sessionsOf(other.id)).toEqual([]);
    // The audit log names the member whose codes are being guessed at.
    await t.app.securityEvents.settled();
    const locked = await t.db.selectFrom('security_events').select('user_id').where('event', '=', 'account.login.locked').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(locked.user_id).toBe(other.id);
    clock.advance(60);
    expect((await secondStep(t.app, step, codeAt(otherSecret, clock.now()))).statusCode).toBe(303);
  });
});

describe('device cookies collected before the codes were turned on', () => {
  it('buy no guesses of their own: the account\'s code counter counts every browser\'s', async () => {
    const member = await makeUser(t.db);
    // Three sign-ins from new browsers (whoever knew the password): three device cookies.
    const devices: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const signedIn = await passwordStep(t.app, member);
      expect(signedIn.response.statusCode).toBe(303);
      const device = signedIn.response.cookies.find((c) => c.name === 'fs_device');
      devices.push(`fs_device=${device!.value}`);
    }
    await enrol(t.app, await t.logIn(member), clock.now());
    await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute();
    const steps = [];
    for (const device of devices) steps.push(await passwordStep(t.app, member, '/', device));
    // Each cookie's own counter has four free failures after its password: twelve guesses, were they all.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await secondStep(t.app, steps[i % 3]!, String(100000 + i))).statusCode);
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
    await t.app.securityEvents.settled();
    const locked = await t.db.selectFrom('security_events').select('details').where('event', '=', 'account.login.locked').where('user_id', '=', member.id).execute();
    expect(locked.map((row) => (row.details as { lockedBy: string }).lockedBy)).toEqual(['second-factor', 'second-factor']);
  });
});

describe('turning codes off and new recovery codes', () => {
  it('each needs a current code; off deletes secret and recovery codes and tells the member', async () => {
    const member = await makeUser(t.db);
    const { secret, session } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(30);
    const counters = () => t.db.selectFrom('login_throttle').select(['key', 'failures']).orderBy('key').execute();
    const countersBefore = await counters();
    const wrong = await turnOff(session, '');
    expect(wrong.statusCode).toBe(400);
    // No code is asked for, not counted as a wrong one; the error stands beside the field of the form it is about, not beside the other form's.
    expect(wrong.body).toContain('<p class="field-error" role="alert" id="otp-error" tabindex="-1" autofocus>Bitte gib den Code aus deiner App ein.</p>');
    expect(await counters()).toEqual(countersBefore);
    expect(wrong.body).toContain('<form method="post" action="/settings/security/one-time-codes/disable" novalidate>');
    expect(wrong.body).toContain('<label for="otp-disable-code">Aktueller Code aus der App, um Einmalcodes auszuschalten</label>');
    expect(wrong.body).toMatch(/<input type="text" id="otp-disable-code" [^>]* aria-invalid="true" aria-describedby="otp-error">\n {4}<p class="field-error" role="alert" id="otp-error"/);
    expect(wrong.body).toMatch(/<input type="text" id="otp-regenerate-code" [^>]*required>/);
    expect(wrong.body.match(/id="otp-error"/g)).toHaveLength(1);
    expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', member.id).execute()).toHaveLength(1);

    const regenerated = await regenerate(session, codeAt(secret, clock.now()));
    expect(regenerated.statusCode).toBe(200);
    expect([...regenerated.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)]).toHaveLength(10);
    clock.advance(30);

    const off = await turnOff(session, codeAt(secret, clock.now()));
    expect(off.statusCode).toBe(303);
    expect(off.headers.location).toBe('/settings/security?otp=off');
    const notice = await t.app.inject({ url: off.headers.location, headers: { cookie: session.cookie } });
    expect(notice.body).toContain('<p class="notice" role="status" tabindex="-1" autofocus>Einmalcodes sind ausgeschaltet.</p>');
    expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('recovery_codes').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
    expect(await mailsTo(member.email)).toEqual(['one-time-codes-enabled', 'recovery-codes-regenerated', 'one-time-codes-disabled']);
    // The next login asks for the password only.
    const step = await passwordStep(t.app, member);
    expect(step.response.headers.location).toBe('/');
  });
});

describe('twice at once', () => {
  it('turning codes off in two tabs, each with its own right code (truly concurrent on PostgreSQL): off, and one mail', async () => {
    const member = await makeUser(t.db);
    const { secret, recoveryCodes, session } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(30);
    const answers = await Promise.all([turnOff(session, codeAt(secret, clock.now())), turnOff(session, recoveryCodes[0]!)]);
    // One after the other (PGlite, or whichever PostgreSQL lets first), the second finds no codes to check its own against: 400.
    expect(answers.map((a) => a.statusCode).sort()).toSatisfy((statuses: number[]) => ['303,303', '303,400'].includes(statuses.join()));
    expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
    // (Besides, on PostgreSQL, the mail that a recovery code was used.)
    expect((await mailsTo(member.email)).filter((kind) => kind === 'one-time-codes-disabled')).toHaveLength(1);
  });

  it('two tabs, each with its own right code (truly concurrent on PostgreSQL): ten unused codes stay, not twenty', async () => {
    const member = await makeUser(t.db);
    const { secret, recoveryCodes, session } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(30);
    const answers = await Promise.all([regenerate(session, codeAt(secret, clock.now())), regenerate(session, recoveryCodes[0]!)]);
    // One after the other (PGlite, or whichever PostgreSQL lets first), the first's new codes make the second's code an old one: 400.
    expect(answers.map((a) => a.statusCode).sort()).toSatisfy((statuses: number[]) => ['200,200', '200,400'].includes(statuses.join()));
    const stored = await t.db.selectFrom('recovery_codes').select('code_digest').where('user_id', '=', member.id).where('used_at', 'is', null).execute();
    expect(stored).toHaveLength(10);
  });
});

describe.runIf(TEST_DATABASE_URL)('an enrolment confirmed while another tab starts it anew (PostgreSQL)', () => {
  it('the code of the first secret does not turn the second on: refused with why (409), nothing on, the new secret still pending', async () => {
    const member = await makeUser(t.db);
    const session = await t.logIn(member);
    const secret = await startEnrolment(t.app, session);
    const replacement = randomBytes(60);
    let confirmed: ReturnType<typeof postForm> | undefined;
    // The other tab's start under way: the pending secret replaced, not yet committed; the confirmation read the first.
    await t.db.transaction().execute(async (restart) => {
      await restart.updateTable('one_time_code_secrets').set({ secret: replacement, last_used_step: null }).where('user_id', '=', member.id).execute();
      confirmed = postForm(t.app, '/settings/security/one-time-codes/confirm', session.cookie, { csrf_token: session.csrfToken, code: codeAt(secret, clock.now()) });
      await untilWaitingOn(t.db, await backendPid(restart), confirmed);
    });
    const answer = await confirmed!;
    // The code was right, for the secret the other tab replaced: said so, beside the new one.
    expect(answer.statusCode).toBe(409);
    expect(answer.body).toContain('Die Einrichtung wurde inzwischen in einem anderen Tab neu begonnen. Scanne den neuen QR-Code und gib einen Code daraus ein.');
    expect(await t.db.selectFrom('one_time_code_secrets').select(['secret', 'enabled_at']).where('user_id', '=', member.id).execute())
      .toEqual([{ secret: replacement, enabled_at: null }]);
    expect(await t.db.selectFrom('recovery_codes').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
    expect(await mailsTo(member.email)).toEqual([]);
  });
});

describe('new recovery codes while codes are turned off in another tab', () => {
  const unusedCodes = async (userId: number) => t.db.selectFrom('recovery_codes').select('code_digest').where('user_id', '=', userId).execute();

  it('off after the code was checked: off stands, no recovery codes are stored or shown, the page says codes are off', async () => {
    const member = await makeUser(t.db);
    const { secret, session } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(30);
    let off: Awaited<ReturnType<typeof turnOff>> | undefined;
    afterCodeChecked = async () => {
      clock.advance(30);
      off = await turnOff(session, codeAt(secret, clock.now()));
    };
    const regenerated = await regenerate(session, codeAt(secret, clock.now()));
    expect(off?.statusCode).toBe(303);
    expect(regenerated.statusCode).toBe(303);
    expect(regenerated.headers.location).toBe('/settings/security?otp=off');
    expect(await unusedCodes(member.id)).toEqual([]);
    expect(await mailsTo(member.email)).toEqual(['one-time-codes-enabled', 'one-time-codes-disabled']);
  });

  it.runIf(TEST_DATABASE_URL)('off while the new codes are being stored (PostgreSQL): off waits, then deletes them too', async () => {
    const member = await makeUser(t.db);
    const { secret, session } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(30);
    let regenerated: Awaited<ReturnType<typeof regenerate>> | undefined;
    let off: Awaited<ReturnType<typeof turnOff>> | undefined;
    expect(await gatedBeforeInsertInto(t.db, 'recovery_codes', async () => { regenerated = await regenerate(session, codeAt(secret, clock.now())); }, async () => {
      clock.advance(30);
      off = await turnOff(session, codeAt(secret, clock.now()));
    })).toEqual(['done', 'done']);
    expect([regenerated?.statusCode, off?.statusCode]).toEqual([200, 303]);
    expect(await unusedCodes(member.id)).toEqual([]);
    expect(await t.db.selectFrom('one_time_code_secrets').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
  });
});

describe('refusals write nothing', () => {
  it('wrong, junk and replayed codes, missing tokens and pending logins: 4xx, no table changed but the failed-login counters', async () => {
    const member = await makeUser(t.db);
    const session = await t.logIn(member);
    const { secret } = await enrol(t.app, session, clock.now());
    await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute();
    const step = await passwordStep(t.app, member);
    const holder = await t.logIn(await makeUser(t.db));
    const probe = await HostileProbe.start(t);
    const form = (url: string, cookie: string, fields: Record<string, string>) => ({
      method: 'POST' as const, url, payload: new URLSearchParams(fields).toString(), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    const junk = ['', '000000', codeAt(secret, clock.now()), 'x'.repeat(100), 'a\u0000b', 'zzzz-zzzz-zzzz', '١٢٣٤٥٦'];
    for (const code of junk) {
      const refused = await probe.send(form('/login/second-factor', step.cookie, { csrf_token: step.csrf, code }), `second step ${JSON.stringify(code)}`);
      expect([400, 401, 429]).toContain(refused.statusCode);
      for (const path of ['confirm', 'disable', 'recovery-codes']) {
        const answer = await probe.send(form(`/settings/security/one-time-codes/${path}`, holder.cookie, { csrf_token: holder.csrfToken, code }), `${path} ${JSON.stringify(code)}`);
        expect([400, 429]).toContain(answer.statusCode);
      }
    }
    expect((await probe.send(form('/login/second-factor', step.cookie, { csrf_token: 'wrong', code: '123456' }), 'no token')).statusCode).toBe(403);
    expect((await probe.send({ method: 'POST', url: '/login/second-factor', payload: { code: ['1', '2'] } }, 'json array')).statusCode).toBe(400);
    expect((await probe.send({ url: '/settings/security?otp=on', headers: { cookie: holder.cookie } }, 'bad query')).statusCode).toBe(400);
    expect(await probe.settled()).toBe(true);
  });
});
