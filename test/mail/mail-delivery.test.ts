/**
 * Outgoing mail through a real SMTP server in the test process: what a
 * delivered message carries (Date, Message-ID, From, To, text and HTML, the
 * member's language), retries from the queue after a refusal, and giving up
 * after a permanent one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNLOCK_MAIL_KIND } from '../../src/accounts/login-unlock.ts';
import { enqueueMail } from '../../src/mail/mail-outbox.repository.ts';
import { MAIL_RETRY_DELAYS_SECONDS, MailSender } from '../../src/mail/mail-sender.ts';
import { requiresStartTls, smtpTransport } from '../../src/mail/mail-transport.ts';
import { unlockMailComposer } from '../../src/accounts/login-unlock.mail.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { SMTP_PASSWORD, startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.ts';

let smtp: TestSmtpServer;
beforeAll(async () => { smtp = await startSmtpServer(); });
afterAll(async () => { await smtp.close(); });

const lines: string[] = [];
const t = useTestApp(() => ({ env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' }, logStream: { write: (line) => { lines.push(line); } } }));

const events = (name: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.event === name);
const mailRow = (id: number) => t.db.selectFrom('mail_outbox').select(['state', 'attempts', 'last_error']).where('id', '=', id).executeTakeFirstOrThrow();
const LINK = /http:\/\/localhost:8080\/login\/unlock\/[A-Za-z0-9_-]{43}/;

async function queueUnlockMail(email: string, locale: 'de' | 'en') {
  return enqueueMail(t.db, { kind: UNLOCK_MAIL_KIND, recipient: email.toLowerCase(), locale, params: { returnTo: '/' } }, t.clock.now());
}

describe('a queued mail', () => {
  it('reaches the SMTP server with Date, Message-ID, From, To, a text and an HTML part, in English', async () => {
    const user = await makeUser(t.db, { email: 'Ada.Mail@example.org' });
    const id = await queueUnlockMail(user.email, 'en');
    const before = smtp.received.length;
    expect(await t.app.mailSender!.runOnce()).toBe(1);
    expect(smtp.received.length).toBe(before + 1);
    const message = smtp.received.at(-1)!;
    expect(smtp.envelopes.at(-1)).toEqual(['Ada.Mail@example.org']);
    expect(message.from?.text).toBe('noreply@localhost');
    expect(message.to).toMatchObject({ text: 'Ada.Mail@example.org' });
    expect(message.subject).toBe('Unlock your login');
    expect(message.messageId).toMatch(/^<[0-9a-f-]{36}@localhost>$/);
    expect(Math.abs(message.date!.getTime() - t.clock.now().getTime())).toBeLessThan(60_000);
    expect(message.headers.get('content-language')).toBe('en');
    const link = LINK.exec(message.text!)![0];
    expect(message.text).toContain('Open the link in the browser you want to log in with.');
    expect(message.html).toContain(`href="${link}"`);
    // No tracking: no image, no remote content, no link but the one the message is about.
    expect(message.html).not.toMatch(/<img|src=|url\(/i);
    expect([...(message.html as string).matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual([link]);
    expect(await mailRow(id)).toEqual({ state: 'sent', attempts: 1, last_error: null });
    expect(events('mail.sent')).toContainEqual(expect.objectContaining({ mailId: id, kind: UNLOCK_MAIL_KIND, attempts: 1 }));
    expect(lines.join('\n')).not.toContain(SMTP_PASSWORD);
  });

  it('is written in German for a German request', async () => {
    const user = await makeUser(t.db);
    await queueUnlockMail(user.email, 'de');
    await t.app.mailSender!.runOnce();
    const message = smtp.received.at(-1)!;
    expect(message.subject).toBe('Anmeldung entsperren');
    expect(message.headers.get('content-language')).toBe('de');
    expect(message.text).toContain('Öffne den Link in dem Browser, mit dem du dich anmelden möchtest.');
    expect(message.html).toContain('<html lang="de">');
    expect(message.html).toContain('Diesen Browser entsperren');
  });

  it('is retried after the server refused it for now (451), and delivered then', async () => {
    const user = await makeUser(t.db);
    const id = await queueUnlockMail(user.email, 'en');
    smtp.refuseWith = { code: 451, text: 'Try again later' };
    const delivered = smtp.received.length;
    try {
      await t.app.mailSender!.runOnce();
    } finally {
      smtp.refuseWith = undefined;
    }
    expect(smtp.received.length).toBe(delivered);
    expect(await mailRow(id)).toEqual({ state: 'pending', attempts: 1, last_error: expect.stringContaining('451') });
    // Not due before its pause has passed.
    t.clock.advance(MAIL_RETRY_DELAYS_SECONDS[0] - 5);
    expect(await t.app.mailSender!.runOnce()).toBe(0);
    t.clock.advance(5);
    expect(await t.app.mailSender!.runOnce()).toBe(1);
    expect(smtp.received.length).toBe(delivered + 1);
    expect(smtp.envelopes.at(-1)).toEqual([user.email]);
    expect(await mailRow(id)).toEqual({ state: 'sent', attempts: 2, last_error: null });
  });

  it('is given up at once when the server refuses it for good (550)', async () => {
    const user = await makeUser(t.db);
    const id = await queueUnlockMail(user.email, 'en');
    smtp.refuseWith = { code: 550, text: 'No such mailbox' };
    try {
      await t.app.mailSender!.runOnce();
    } finally {
      smtp.refuseWith = undefined;
    }
    expect(await mailRow(id)).toMatchObject({ state: 'abandoned', attempts: 1, last_error: expect.stringContaining('550') });
    expect(events('mail.failed')).toContainEqual(expect.objectContaining({ mailId: id, attempts: 1, error: expect.stringContaining('550') }));
  });

  it('sends nothing to an address without an account', async () => {
    const id = await queueUnlockMail('nobody@example.org', 'en');
    const delivered = smtp.received.length;
    await t.app.mailSender!.runOnce();
    expect(smtp.received.length).toBe(delivered);
    expect(await mailRow(id)).toEqual({ state: 'skipped', attempts: 1, last_error: null });
    expect(await t.db.selectFrom('login_unlock_tokens').select('digest').where('account', '=', 'nobody@example.org').execute()).toEqual([]);
  });

  it('survives a restart: another sender on the same database delivers what the first one left', async () => {
    const user = await makeUser(t.db);
    const id = await queueUnlockMail(user.email, 'en');
    const other = new MailSender({
      db: t.db, clock: t.clock.now, transport: smtpTransport(smtp.url, 'noreply@localhost'),
      composers: { [UNLOCK_MAIL_KIND]: unlockMailComposer(t.config.publicUrl) }, messageIdHost: 'localhost', log: { info: () => {}, warn: () => {} },
    });
    try {
      expect(await other.runOnce()).toBe(1);
    } finally {
      await other.stop();
    }
    expect(smtp.envelopes.at(-1)).toEqual([user.email]);
    expect(await mailRow(id)).toMatchObject({ state: 'sent' });
  });
});

describe('STARTTLS (RFC 8314)', () => {
  it('is required of a server on another host, not of a relay on this one (smtps is TLS from the start)', () => {
    expect(requiresStartTls('smtp://mailer:pw@mail.example.org:587')).toBe(true);
    expect(requiresStartTls('smtp://10.0.0.5:25')).toBe(true);
    for (const local of ['smtp://127.0.0.1:25', 'smtp://u:p@localhost:25', 'smtp://[::1]:25', 'smtps://mail.example.org:465']) expect(requiresStartTls(local), local).toBe(false);
  });

  it('required, a server that does not offer it gets neither the password nor the message', async () => {
    const transport = smtpTransport(smtp.url, 'noreply@localhost', { requireTls: true });
    const [before, authenticatedBefore] = [smtp.received.length, smtp.authenticated];
    try {
      await expect(transport.send({
        to: 'ada@example.org', locale: 'en', messageId: 'x@localhost', date: new Date(), links: [], subject: 'Reset', text: 'https://x/reset', html: '<p>x</p>',
      })).rejects.toMatchObject({ name: 'MailDeliveryError', permanent: false, message: 'not delivered: STARTTLS is required and the server did not complete it' });
    } finally {
      transport.close();
    }
    expect(smtp.received.length).toBe(before);
    expect(smtp.authenticated).toBe(authenticatedBefore);
  });
});
