/**
 * Without SMTP_URL outside production, each message is written to
 * DATA_DIR/outbox/ as an .eml file and its link is logged, so that a newcomer
 * can follow it; with MAIL=off there is no sender at all.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { UNLOCK_MAIL_KIND } from '../../src/accounts/login-unlock.ts';
import { enqueueMail } from '../../src/mail/mail-outbox.repository.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';

const lines: string[] = [];
const t = useTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line) => { lines.push(line); } } });
const off = useTestApp({ env: { MAIL: 'off' } });

describe('the embedded outbox', () => {
  it('writes the message as an .eml file (mode 0600) and logs its link', async () => {
    expect(t.config.mail).toEqual({ mode: 'outbox', dir: path.join(t.config.dataDir, 'outbox'), from: 'noreply@localhost' });
    const user = await makeUser(t.db);
    await enqueueMail(t.db, { kind: UNLOCK_MAIL_KIND, recipient: user.email, locale: 'en', params: { returnTo: '/' } }, t.clock.now());
    expect(await t.app.mailSender!.runOnce()).toBe(1);
    const dir = path.join(t.config.dataDir, 'outbox');
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const file = path.join(dir, files[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const message = await simpleParser(await readFile(file));
    expect(message.to).toMatchObject({ text: user.email });
    expect(message.subject).toBe('Unlock your login');
    expect(message.messageId).toMatch(/@localhost>$/);
    expect(message.date).toBeInstanceOf(Date);
    const link = /http:\/\/localhost:8080\/login\/unlock\/[A-Za-z0-9_-]{43}/.exec(message.text!)![0];
    expect(message.html).toContain(link);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((l) => l.msg === 'mail written to the outbox (no SMTP_URL set)');
    expect(logged).toMatchObject({ file, links: [link], subject: 'Unlock your login' });
  });
});

describe('MAIL=off', () => {
  it('runs no mail sender', () => {
    expect(off.config.mail).toEqual({ mode: 'off' });
    expect(off.app.mailSender).toBeUndefined();
  });
});
