/**
 * Resetting a forgotten password by email: the same answer for known and
 * unknown addresses, a link that is single use, short-lived, replaced by a
 * newer one and ended by any password change; at most three mails per
 * address and hour; the rules on the new password; success ends the old
 * sessions and refresh tokens and keeps the pending `return_to`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUserPassword } from '../../src/accounts/accounts.service.ts';
import { PER_ACCOUNT_POLICY } from '../../src/accounts/login-throttle.ts';
import { RESET_LINK_MINUTES, RESET_MAILS_PER_HOUR, RESET_REQUESTS_PER_IP_PER_HOUR, storeResetToken } from '../../src/accounts/password-reset.ts';
import { randomToken } from '../../src/accounts/sessions.ts';
import { makeUser, TEST_PASSWORD } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { openLoginPage } from '../helpers/login-page.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.ts';

let smtp: TestSmtpServer;
beforeAll(async () => { smtp = await startSmtpServer(); });
afterAll(async () => { await smtp.close(); });

const lines: string[] = [];
const t = useTestApp(() => ({ env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' }, logStream: { write: (line) => { lines.push(line); } } }));
const off = useTestApp({ env: { MAIL: 'off' } });

const events = (name: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.event === name);
const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' };
const NEW_PASSWORD = 'a brand new pass phrase';
let ipCounter = 0;
const nextIp = () => `198.18.7.${(++ipCounter % 250) + 1}`;

function post(url: string, fields: Record<string, string>, cookie: string, ip = '192.0.2.60') {
  return t.app.inject({ method: 'POST', url, payload: new URLSearchParams(fields).toString(), headers: { ...FORM, cookie }, remoteAddress: ip });
}

async function askForLink(email: string, returnTo = '/', ip = nextIp()) {
  const page = await t.app.inject({ url: `/password/forgot?return_to=${encodeURIComponent(returnTo)}`, headers: { 'accept-language': 'en' } });
  expect(page.statusCode).toBe(200);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return post('/password/forgot', { email, csrf_token: csrf, return_to: returnTo }, cookie, ip);
}

/** Sends everything queued (a batch at a time). */
async function sendAll(): Promise<void> {
  while ((await t.app.mailSender!.runOnce()) > 0);
}

/** Sends what is queued and returns the path of the link in the last message to `email`. */
async function linkSentTo(email: string): Promise<string> {
  await sendAll();
  const index = smtp.envelopes.map((to) => to.includes(email)).lastIndexOf(true);
  expect(index).toBeGreaterThanOrEqual(0);
  return new URL(/http:\/\/localhost:8080\/password\/reset\/[A-Za-z0-9_-]{43}/.exec(smtp.received[index]!.text!)![0]).pathname;
}

/** Opens the link's form as a browser and submits a new password. */
async function setPassword(path: string, password: string) {
  const page = await t.app.inject({ url: path, headers: { 'accept-language': 'en' } });
  if (page.statusCode !== 200) return page;
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return post(path, { csrf_token: csrf, new_password: password }, cookie);
}

const apiLogin = (email: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email, password }, remoteAddress: nextIp() });
const mailsTo = async (email: string) => smtp.envelopes.filter((to) => to.includes(email)).length;

describe('asking for a link', () => {
  it('answers a known and an unknown address the same way, and mails only the known one', async () => {
    const user = await makeUser(t.db);
    const known = await askForLink(user.email);
    const unknown = await askForLink('nobody-at-all@example.org');
    for (const answer of [known, unknown]) {
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain(`If an account exists for this address, we have sent it a link. It works for ${RESET_LINK_MINUTES} minutes.`);
    }
    expect(unknown.body).toBe(known.body);
    await sendAll();
    expect(await mailsTo(user.email)).toBe(1);
    expect(await mailsTo('nobody-at-all@example.org')).toBe(0);
    const mail = smtp.received[smtp.envelopes.findIndex((to) => to.includes(user.email))]!;
    expect(mail.subject).toBe('Reset your password');
    // Only the digest is stored.
    const link = /\/password\/reset\/([A-Za-z0-9_-]{43})/.exec(mail.text!)![1]!;
    const rows = await t.db.selectFrom('password_reset_tokens').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.digest.toString('base64url')).not.toBe(link);
    expect(rows[0]!.digest).toHaveLength(32);
  });

  it('an empty address is asked for, beside the field; nothing is sent', async () => {
    const before = smtp.envelopes.length;
    const answer = await askForLink('   ');
    expect(answer.statusCode).toBe(400);
    // Beside the field, which points to it.
    expect(answer.body).toMatch(/<input type="email" id="email" name="email" value="" autocomplete="username" required aria-invalid="true" aria-describedby="forgot-intro forgot-error">\n {2}<p class="field-error" role="alert" id="forgot-error" tabindex="-1" autofocus>Please enter your email address.<\/p>/);
    await sendAll();
    expect(smtp.envelopes.length).toBe(before);
  });

  it('writes the mail in the language of the request', async () => {
    const user = await makeUser(t.db);
    const page = await t.app.inject({ url: '/password/forgot', headers: { 'accept-language': 'de' } });
    expect(page.body).toContain('Passwort vergessen');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const asked = await t.app.inject({ method: 'POST', url: '/password/forgot', payload: new URLSearchParams({ email: user.email, csrf_token: csrf }).toString(),
      headers: { ...FORM, 'accept-language': 'de', cookie }, remoteAddress: nextIp() });
    expect(asked.body).toContain('Wenn es ein Konto mit dieser E-Mail-Adresse gibt, haben wir ihm einen Link geschickt.');
    const link = await linkSentTo(user.email);
    expect(smtp.received[smtp.envelopes.map((to) => to.includes(user.email)).lastIndexOf(true)]!.subject).toBe('Passwort zurücksetzen');
    const form = await t.app.inject({ url: link, headers: { 'accept-language': 'de' } });
    expect(form.body).toContain('<p id="password-intro">Mindestens 8 Zeichen; ein Satz aus mehreren Wörtern ist leicht zu merken und schwer zu erraten. Mit dem neuen Passwort werden alle deine Anmeldungen beendet, auf jedem Gerät, und Apps mit Zugriff auf dein Konto müssen dich neu anmelden.</p>');
    expect(form.body).not.toContain('alle anderen Anmeldungen');
  });

  it(`sends at most ${RESET_MAILS_PER_HOUR} mails per address and hour`, async () => {
    const user = await makeUser(t.db);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await askForLink(user.email.toUpperCase()));
    for (const answer of answers) expect([answer.statusCode, answer.body]).toEqual([200, answers[0]!.body]);
    await sendAll();
    expect(await mailsTo(user.email)).toBe(3);
    expect(events('account.password_reset.limited').length).toBeGreaterThanOrEqual(1);
    t.clock.advance(3600);
    await askForLink(user.email);
    await sendAll();
    expect(await mailsTo(user.email)).toBe(4);
  });

  it('limits the requests of one client address too', async () => {
    const limitedBefore = events('account.password_reset.limited').length;
    for (let i = 0; i < 10; i++) expect((await askForLink(`flood-${i}@example.org`, '/', '192.0.2.99')).statusCode).toBe(200);
    expect(events('account.password_reset.limited')).toHaveLength(limitedBefore);
    const user = await makeUser(t.db);
    expect((await askForLink(user.email, '/', '192.0.2.99')).statusCode).toBe(200);
    expect(events('account.password_reset.limited')).toHaveLength(limitedBefore + 1);
    expect(await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email).execute()).toHaveLength(0);
  });

  it('counts the addresses of one IPv6 /64 as one client address; another /64 is another client', async () => {
    const queuedTo = async (email: string) => (await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', email).execute()).length;
    for (let i = 1; i <= RESET_REQUESTS_PER_IP_PER_HOUR; i++) await askForLink(`flood6-${i}@example.org`, '/', `2001:db8:1:2::${i.toString(16)}`);
    const sameNetwork = await makeUser(t.db);
    const refused = await askForLink(sameNetwork.email, '/', '2001:db8:1:2:ffff:1:2:3');
    expect(refused.statusCode).toBe(200);
    expect(await queuedTo(sameNetwork.email)).toBe(0);
    const otherNetwork = await makeUser(t.db);
    await askForLink(otherNetwork.email, '/', '2001:db8:1:3::1');
    expect(await queuedTo(otherNetwork.email)).toBe(1);
  });
});

describe('following the link', () => {
  it('sets the password: old sessions and refresh tokens end, the old password fails, the new works, return_to survives', async () => {
    const user = await makeUser(t.db);
    const returnTo = '/oauth/authorize?client_id=app&scope=openid';
    const login = await openLoginPage(t.app, `?return_to=${encodeURIComponent(returnTo)}`, { 'accept-language': 'en' });
    expect(login.page.body).toContain(`<a href="/password/forgot?return_to=${encodeURIComponent(returnTo)}">Forgot your password?</a>`);
    const old = await logInAs(t.app, user);
    const client = await makeClient(t);
    const code = await obtainCode(t, { clientId: client.clientId, cookie: old.cookie, scope: 'openid' });
    const tokens = (await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret! })).json() as { refresh_token: string };
    // Guesses from many addresses fill the account-wide counter: the reset empties it.
    for (let i = 0; i < PER_ACCOUNT_POLICY.free; i++) expect((await apiLogin(user.email, 'guess')).statusCode).toBe(401);
    expect((await apiLogin(user.email, TEST_PASSWORD)).statusCode).toBe(429);

    const asked = await askForLink(user.email, returnTo);
    expect(asked.statusCode).toBe(200);
    const link = await linkSentTo(user.email);
    const form = await t.app.inject({ url: link, headers: { 'accept-language': 'en' } });
    expect(form.statusCode).toBe(200);
    expect(form.headers['referrer-policy']).toBe('no-referrer');
    expect(form.body).toContain(`<input type="text" name="username" value="${user.email}" autocomplete="username" hidden>`);
    expect(form.body).toContain('autocomplete="new-password"');
    // A reset ends every session, this browser's included: not the password change's "every other session".
    expect(form.body).toContain('<p id="password-intro">At least 8 characters; a sentence of several words is easy to remember and hard to guess. Saving the new password ends all your sessions, on every device, and apps with access to your account must sign you in again.</p>');
    expect(form.body).not.toContain('every other session');
    const done = await setPassword(link, NEW_PASSWORD);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/login?return_to=${encodeURIComponent(returnTo)}&reset=1`);
    const after = await t.app.inject({ url: done.headers.location as string, headers: { 'accept-language': 'en' } });
    expect(after.body).toContain('Your password has been changed. Log in with your new password.');

    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: old.cookie } })).statusCode).toBe(401);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.secret! });
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await apiLogin(user.email, TEST_PASSWORD)).statusCode).toBe(401);
    expect((await apiLogin(user.email, NEW_PASSWORD)).statusCode).toBe(200);
    expect(events('account.password_reset.completed')).toContainEqual(expect.objectContaining({ userId: user.id, sessionsEnded: 1, grantsRevoked: 1 }));
    const mails = await t.db.selectFrom('mail_outbox').select('kind').where('recipient', '=', user.email).orderBy('id').execute();
    expect(mails.map((m) => m.kind)).toEqual(['password-reset', 'password-changed']);
    // The mail says what happened: a reset, which ended every session.
    await sendAll();
    const changedMail = smtp.received[smtp.envelopes.map((to) => to.includes(user.email)).lastIndexOf(true)]!;
    expect(changedMail.subject).toBe('Your password was changed');
    expect(changedMail.text).toContain('set anew through a reset link');
    expect(changedMail.text).toContain('Every session was ended with it.');
    // Used once: the same link again is refused.
    const again = await setPassword(link, 'yet another pass phrase');
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('This link is invalid or has expired.');
    expect(again.body).toContain('<a href="/password/forgot">');
  });

  it('revokes refresh tokens whose session had already ended', async () => {
    const user = await makeUser(t.db);
    const session = await logInAs(t.app, user);
    const client = await makeClient(t);
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie, scope: 'openid' });
    const tokens = (await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret! })).json() as { refresh_token: string };
    await t.db.deleteFrom('sessions').where('user_id', '=', user.id).execute(); // as an expiry leaves it
    await askForLink(user.email);
    expect((await setPassword(await linkSentTo(user.email), NEW_PASSWORD)).statusCode).toBe(303);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.secret! });
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a new password against the rules beside the field, and keeps the link', async () => {
    const user = await makeUser(t.db);
    await askForLink(user.email);
    const link = await linkSentTo(user.email);
    for (const [password, message] of [
      ['short', 'The new password must be at least 8 characters long.'],
      ['password123', 'This password is one of the most commonly used. Please choose another.'],
      [user.email, 'The new password must not be your email address, not even with digits or signs added.'],
      ['aaaaaaaa', 'The new password must not be a repetition or a sequence of characters (like aaaaaaaa, 12341234 or abcdefgh).'],
      ['Foodsharing2026', 'The new password must not be the name of this service or the published demo password, not even with digits or signs added.'],
    ] as const) {
      const refused = await setPassword(link, password);
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain(`<p class="field-error" id="new_password-error">${message}</p>`);
      expect(refused.body).toContain('aria-describedby="password-intro new_password-error" aria-invalid="true"');
    }
    expect((await apiLogin(user.email, TEST_PASSWORD)).statusCode).toBe(200);
    expect((await setPassword(link, NEW_PASSWORD)).statusCode).toBe(303);
  });

  it('refuses a forged form token without using the link', async () => {
    const user = await makeUser(t.db);
    await askForLink(user.email);
    const link = await linkSentTo(user.email);
    expect((await post(link, { csrf_token: 'forged', new_password: NEW_PASSWORD }, '')).statusCode).toBe(403);
    expect((await setPassword(link, NEW_PASSWORD)).statusCode).toBe(303);
  });

  it('expires after 30 minutes', async () => {
    const user = await makeUser(t.db);
    await askForLink(user.email);
    const link = await linkSentTo(user.email);
    t.clock.advance(RESET_LINK_MINUTES * 60);
    const late = await t.app.inject({ url: link, headers: { 'accept-language': 'en' } });
    expect(late.statusCode).toBe(410);
    expect(late.body).toContain('This link is invalid or has expired.');
    expect((await apiLogin(user.email, TEST_PASSWORD)).statusCode).toBe(200);
  });

  it('is replaced by a newer link', async () => {
    const user = await makeUser(t.db);
    await askForLink(user.email);
    const older = await linkSentTo(user.email);
    await askForLink(user.email);
    const newer = await linkSentTo(user.email);
    expect(newer).not.toBe(older);
    expect((await setPassword(older, NEW_PASSWORD)).statusCode).toBe(410);
    expect((await setPassword(newer, NEW_PASSWORD)).statusCode).toBe(303);
  });

  it('leaves one live link when several are sent at once: the newest replaces the others', async () => {
    const user = await makeUser(t.db);
    for (let i = 0; i < 3; i++) expect((await askForLink(user.email)).statusCode).toBe(200);
    // One batch: the sender composes (and stores) the three links side by side.
    await sendAll();
    const links = smtp.received.filter((_, i) => smtp.envelopes[i]!.includes(user.email))
      .map((mail) => new URL(/http:\/\/localhost:8080\/password\/reset\/[A-Za-z0-9_-]{43}/.exec(mail.text!)![0]).pathname);
    expect(links).toHaveLength(3);
    expect(await t.db.selectFrom('password_reset_tokens').select('user_id').where('user_id', '=', user.id).execute()).toEqual([{ user_id: user.id }]);
    const opened = await Promise.all(links.map(async (link) => (await t.app.inject({ url: link, headers: { 'accept-language': 'en' } })).statusCode));
    expect(opened.sort()).toEqual([200, 410, 410]);
  });

  it('keeps one link of many stored at once, over the pool\'s connections (the member\'s lock; on PostgreSQL the statements would interleave)', async () => {
    const user = await makeUser(t.db);
    const { password_hash: passwordHash } = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    await Promise.all(Array.from({ length: 20 }, () => storeResetToken(t.db, { token: randomToken(), userId: user.id, passwordHash, returnTo: '/' }, t.clock.now())));
    expect(await t.db.selectFrom('password_reset_tokens').select('user_id').where('user_id', '=', user.id).execute()).toEqual([{ user_id: user.id }]);
  });

  it('is ended by any change of the password', async () => {
    const user = await makeUser(t.db);
    await askForLink(user.email);
    const link = await linkSentTo(user.email);
    expect((await t.app.inject({ url: link })).statusCode).toBe(200);
    await setUserPassword(t.db, user.id, 'an operator chose this one', t.clock.now());
    expect((await t.app.inject({ url: link })).statusCode).toBe(410);
    expect((await setPassword(link, NEW_PASSWORD)).statusCode).toBe(410);
    expect((await apiLogin(user.email, 'an operator chose this one')).statusCode).toBe(200);
    expect(events('account.password_reset.invalid').length).toBeGreaterThan(0);
  });

  it('keeps the token out of the request log, also where the link\'s page passes its path on (its language switch)', async () => {
    const user = await makeUser(t.db);
    await askForLink(user.email);
    const link = await linkSentTo(user.email);
    const page = await t.app.inject({ url: link, headers: { 'accept-language': 'de' } });
    const languageSwitch = /href="(\/language\/en\?return_to=[^"]+)"/.exec(page.body)![1]!;
    expect(languageSwitch).toBe(`/language/en?return_to=${encodeURIComponent(link)}`);
    const switched = await t.app.inject({ url: languageSwitch });
    expect(switched.statusCode).toBe(303);
    expect(lines.filter((line) => line.includes('/language/en?return_to=%2Fpassword%2Freset%2F[redacted]'))).toHaveLength(1);
    const logged = lines.filter((line) => /\/password\/reset|%2Fpassword%2Freset/.test(line));
    expect(logged.length).toBeGreaterThan(1);
    const token = link.split('/').pop()!;
    for (const line of logged) {
      expect(line).not.toMatch(/(\/|%2F)password(\/|%2F)reset(\/|%2F)[A-Za-z0-9_-]{43}/);
      expect(line).not.toContain(token);
    }
  });
});

describe('with MAIL=off', () => {
  it('offers no link and has no reset pages', async () => {
    const login = await openLoginPage(off.app);
    expect(login.page.body).not.toContain('/password/forgot');
    expect((await off.app.inject({ url: '/password/forgot' })).statusCode).toBe(404);
    expect((await off.app.inject({ method: 'POST', url: '/password/forgot', payload: { email: 'a@example.org' } })).statusCode).toBe(404);
    expect((await off.app.inject({ url: `/password/reset/${'a'.repeat(43)}` })).statusCode).toBe(404);
  });
});
