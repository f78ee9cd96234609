/**
 * Unlocking a login by email: guesses spread over many IPs keep the
 * account-wide counter locked; a member's new browser, refused, asks for a
 * link, follows it, and logs in with the right password while the attacker
 * goes on. The link is single use and expires; at most three mails per
 * address and hour; an unknown address gets the same answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_COOKIE } from '../../src/accounts/login-device-cookie.ts';
import { PER_ACCOUNT_POLICY } from '../../src/accounts/login-throttle.ts';
import { UNLOCK_LINK_MINUTES, UNLOCK_REQUESTS_PER_IP_PER_HOUR } from '../../src/accounts/login-unlock.ts';
import { makeUser, TEST_PASSWORD, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { openLoginPage, submitLoginForm } from '../helpers/login-page.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.ts';

let smtp: TestSmtpServer;
beforeAll(async () => { smtp = await startSmtpServer(); });
afterAll(async () => { await smtp.close(); });

const lines: string[] = [];
const t = useTestApp(() => ({ env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' }, logStream: { write: (line) => { lines.push(line); } } }));
const off = useTestApp({ env: { MAIL: 'off' } });

const events = (name: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.event === name);
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' };
let ipCounter = 0;
const nextIp = () => `198.18.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

/** Failures from as many IPs as the account allows: the account-wide counter now refuses browsers without a device cookie. */
async function lockAccount(email: string): Promise<void> {
  for (let i = 0; i < PER_ACCOUNT_POLICY.free; i++) {
    const failed = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email, password: 'guess' }, remoteAddress: nextIp() });
    expect(failed.statusCode).toBe(401);
  }
}

/** A browser's form post with the cookies it holds. */
function post(url: string, fields: Record<string, string>, cookie: string, ip = '192.0.2.50') {
  return t.app.inject({ method: 'POST', url, payload: form(fields), headers: { ...FORM, cookie }, remoteAddress: ip });
}

async function askForLink(email: string, returnTo = '/', ip = nextIp()) {
  const { csrf, cookie } = await openLoginPage(t.app);
  return post('/login/unlock', { email, csrf_token: csrf, return_to: returnTo }, cookie, ip);
}

const queuedTo = async (email: string) => (await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', email.toLowerCase()).execute()).length;

/** Sends everything queued (a batch at a time), so that later tests find only their own mail waiting. */
async function sendAll(): Promise<void> {
  while ((await t.app.mailSender!.runOnce()) > 0);
}

/** Sends what is queued and returns the path of the link in the last message to `email`. */
async function linkSentTo(email: string): Promise<string> {
  await t.app.mailSender!.runOnce();
  const index = smtp.envelopes.map((to) => to.includes(email)).lastIndexOf(true);
  expect(index).toBeGreaterThanOrEqual(0);
  return new URL(/http:\/\/localhost:8080\/login\/unlock\/[A-Za-z0-9_-]{43}/.exec(smtp.received[index]!.text!)![0]).pathname;
}

/** Opens the link as a browser: its page, with the button's form token and the cookies. */
async function openLink(path: string, browserCookie = '') {
  const page = await t.app.inject({ url: path, headers: { cookie: browserCookie, 'accept-language': 'en' } });
  expect(page.statusCode).toBe(200);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
  return { csrf, cookie: [browserCookie, ...page.cookies.map((c) => `${c.name}=${c.value}`)].filter(Boolean).join('; ') };
}

/** Follows the link as a browser: the page, then its button. */
async function followLink(path: string, browserCookie = '') {
  const { csrf, cookie } = await openLink(path, browserCookie);
  return { response: await post(path, { csrf_token: csrf }, cookie), cookie };
}

let member: TestUser;
beforeAll(async () => { member = await makeUser(t.db); });

describe('a member locked out by guesses from many IPs', () => {
  it('unlocks a new browser by email and logs in with the password while the guessing goes on', async () => {
    await lockAccount(member.email);
    const returnTo = '/oauth/authorize?client_id=app&scope=openid';
    // The member's new browser: refused by the account-wide counter, offered the link.
    const login = await openLoginPage(t.app, `?return_to=${encodeURIComponent(returnTo)}`);
    const refused = await submitLoginForm(t.app, { email: member.email, password: TEST_PASSWORD, csrf_token: login.csrf, return_to: returnTo }, login.cookie);
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toContain('<form method="post" action="/login/unlock" class="unlock-offer">');
    expect(refused.body).toContain(`<input type="hidden" name="email" value="${member.email}">`);

    const asked = await post('/login/unlock', { email: member.email, csrf_token: login.csrf, return_to: returnTo }, login.cookie);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain(`Open it in this browser within ${UNLOCK_LINK_MINUTES} minutes`);
    const link = await linkSentTo(member.email);
    expect(await t.db.selectFrom('login_unlock_tokens').select('digest').where('user_id', '=', member.id).execute()).toHaveLength(1);

    const { response: unlocked } = await followLink(link, login.cookie);
    expect(unlocked.statusCode).toBe(303);
    expect(unlocked.headers.location).toBe(`/login?return_to=${encodeURIComponent(returnTo)}&unlocked=1`);
    const device = unlocked.cookies.find((c) => c.name === DEVICE_COOKIE)!;
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    // It unlocks, it does not log in.
    expect(unlocked.cookies.map((c) => c.name)).toEqual([DEVICE_COOKIE]);
    expect(events('account.login.unlocked')).toContainEqual(expect.objectContaining({ userId: member.id }));

    // The attacker goes on from other IPs, once the account's wait has passed: refused or failed, never the member.
    t.clock.advance(15 * 60);
    for (let i = 0; i < 3; i++) {
      const guess = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: member.email, password: 'guess' }, remoteAddress: nextIp() });
      expect([401, 429]).toContain(guess.statusCode);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: member.email, password: TEST_PASSWORD }, remoteAddress: nextIp() })).statusCode).toBe(429);
    const page = await openLoginPage(t.app, `?return_to=${encodeURIComponent(returnTo)}&unlocked=1`, { cookie: `${login.cookie}; ${DEVICE_COOKIE}=${device.value}`, 'accept-language': 'en' });
    expect(page.page.body).toContain('This browser is unlocked. Now log in with your password.');
    const loggedIn = await submitLoginForm(t.app, { email: member.email, password: TEST_PASSWORD, csrf_token: login.csrf, return_to: returnTo },
      `${login.cookie}; ${DEVICE_COOKIE}=${device.value}`);
    expect(loggedIn.statusCode).toBe(303);
    expect(loggedIn.headers.location).toBe(returnTo);
  });

  it('an empty address is asked for beside the field, which points to the message', async () => {
    const answer = await askForLink('');
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toMatch(/required aria-invalid="true" aria-describedby="unlock-error">\n {2}<p class="field-error" role="alert" id="unlock-error" tabindex="-1" autofocus>Please enter your email address\.<\/p>/);
    // The way back, as the forgotten-password page has it.
    expect(answer.body).toContain('<p><a href="/login">Back to the login</a></p>');
  });

  it('takes a link once: a second use, or one after it expired, unlocks nothing', async () => {
    const user = await makeUser(t.db);
    await askForLink(user.email);
    const first = await linkSentTo(user.email);
    const openedBefore = await openLink(first);
    expect((await followLink(first)).response.statusCode).toBe(303);
    // The page opened before the link was used (another tab), its button pressed after: nothing.
    const pressedAfter = await post(first, { csrf_token: openedBefore.csrf }, openedBefore.cookie);
    expect(pressedAfter.statusCode).toBe(410);
    expect(pressedAfter.cookies.map((c) => c.name)).not.toContain(DEVICE_COOKIE);
    // Opened again: said at once, with no button to press.
    const again = await t.app.inject({ url: first, headers: { 'accept-language': 'en' } });
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('<p>This link has expired or was already used. You can ask for a new one.</p>\n<p><a href="/login/unlock">Send me an unlock link by email</a></p>');
    expect(again.body).not.toContain('<form method="post"');
    expect(again.headers['referrer-policy']).toBe('no-referrer');
    // An altered link: the same.
    const altered = `${first.slice(0, -4)}${first.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expect((await t.app.inject({ url: altered })).statusCode).toBe(410);

    await askForLink(user.email);
    const late = await linkSentTo(user.email);
    const openedInTime = await openLink(late);
    t.clock.advance(UNLOCK_LINK_MINUTES * 60);
    expect((await t.app.inject({ url: late })).statusCode).toBe(410);
    expect((await post(late, { csrf_token: openedInTime.csrf }, openedInTime.cookie)).statusCode).toBe(410);
    expect(events('account.login.unlock_invalid')).toHaveLength(5);
    // Following the link's page alone (a mail scanner) spends nothing.
    await askForLink(user.email);
    const scanned = await linkSentTo(user.email);
    expect((await t.app.inject({ url: scanned })).statusCode).toBe(200);
    expect((await followLink(scanned)).response.statusCode).toBe(303);
  });

  it('sends at most three mails per address and hour, and answers an unknown address the same way', async () => {
    const user = await makeUser(t.db);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await askForLink(user.email.toUpperCase()));
    const unknown = await askForLink('nobody-here@example.org');
    for (const answer of [...answers, unknown]) {
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe(answers[0]!.body);
    }
    const queued = await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email.toLowerCase()).execute();
    expect(queued).toHaveLength(3);
    expect(events('account.login.unlock_limited')).toHaveLength(1);
    t.clock.advance(3600);
    await askForLink(user.email);
    expect(await t.db.selectFrom('mail_outbox').select('id').where('recipient', '=', user.email.toLowerCase()).execute()).toHaveLength(4);
  });

  it(`takes at most ${UNLOCK_REQUESTS_PER_IP_PER_HOUR} requests an hour from one client address, for whichever members: then nothing is queued, and the answer is the same`, async () => {
    const limitedBefore = events('account.login.unlock_limited').length;
    const answers = [];
    for (let i = 0; i < UNLOCK_REQUESTS_PER_IP_PER_HOUR; i++) {
      const user = await makeUser(t.db);
      answers.push(await askForLink(user.email, '/', '203.0.113.9'));
      expect(await queuedTo(user.email)).toBe(1);
    }
    expect(events('account.login.unlock_limited')).toHaveLength(limitedBefore);
    const next = await makeUser(t.db);
    const refused = await askForLink(next.email, '/', '203.0.113.9');
    for (const answer of [...answers, refused]) expect([answer.statusCode, answer.body]).toEqual([200, answers[0]!.body]);
    expect(await queuedTo(next.email)).toBe(0);
    expect(events('account.login.unlock_limited')).toHaveLength(limitedBefore + 1);
    // The member's own limit is untouched: from another address the mail goes out.
    await askForLink(next.email);
    expect(await queuedTo(next.email)).toBe(1);
    await sendAll();
  });

  it('counts the addresses of one IPv6 /64 as one client address; another /64 is another client', async () => {
    for (let i = 1; i <= UNLOCK_REQUESTS_PER_IP_PER_HOUR; i++) await askForLink((await makeUser(t.db)).email, '/', `2001:db8:7:8::${i.toString(16)}`);
    const sameNetwork = await makeUser(t.db);
    expect((await askForLink(sameNetwork.email, '/', '2001:db8:7:8:ffff:1:2:3')).statusCode).toBe(200);
    expect(await queuedTo(sameNetwork.email)).toBe(0);
    const otherNetwork = await makeUser(t.db);
    await askForLink(otherNetwork.email, '/', '2001:db8:7:9::1');
    expect(await queuedTo(otherNetwork.email)).toBe(1);
    await sendAll();
  });

  it('keeps the token out of the request log', () => {
    const logged = lines.filter((line) => line.includes('/login/unlock/'));
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line).not.toMatch(/\/login\/unlock\/[A-Za-z0-9_-]{43}/);
  });
});

describe('with MAIL=off', () => {
  it('offers no link and has no unlock pages', async () => {
    const user = await makeUser(off.db);
    for (let i = 0; i < PER_ACCOUNT_POLICY.free; i++) {
      await off.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: 'guess' }, remoteAddress: `198.19.0.${i + 1}` });
    }
    const login = await openLoginPage(off.app);
    const refused = await submitLoginForm(off.app, { email: user.email, password: TEST_PASSWORD, csrf_token: login.csrf, return_to: '/' }, login.cookie);
    expect(refused.statusCode).toBe(429);
    expect(refused.body).not.toContain('/login/unlock');
    expect((await off.app.inject({ url: '/login/unlock' })).statusCode).toBe(404);
  });
});

describe('the JSON login', () => {
  it('names the unlock page when the account-wide limit refuses, and nothing more when a source limit does', async () => {
    const user = await makeUser(t.db);
    await lockAccount(user.email);
    const refused = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: TEST_PASSWORD }, remoteAddress: nextIp() });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'auth.too-many-attempts',
      detail: 'Too many failed logins. Try again in 1 minute.', unlock: 'http://localhost:8080/login/unlock',
    });
    const other = await makeUser(t.db);
    for (let i = 0; i < 5; i++) await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: other.email, password: 'x' }, remoteAddress: '192.0.2.77' });
    const bySource = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: other.email, password: 'x' }, remoteAddress: '192.0.2.77' });
    expect(bySource.statusCode).toBe(429);
    expect(bySource.json()).not.toHaveProperty('unlock');
  });
});

describe('an SMTP server that refuses for now', () => {
  it('never fails the member\'s request: the link arrives on a retry and works', async () => {
    const user = await makeUser(t.db);
    smtp.refuseWith = { code: 451, text: 'Greylisted, try again later' };
    try {
      const asked = await askForLink(user.email);
      expect(asked.statusCode).toBe(200);
      await t.app.mailSender!.runOnce();
      expect(smtp.envelopes.some((to) => to.includes(user.email))).toBe(false);
    } finally {
      smtp.refuseWith = undefined;
    }
    t.clock.advance(60);
    const link = await linkSentTo(user.email);
    expect((await followLink(link)).response.statusCode).toBe(303);
  });
});
