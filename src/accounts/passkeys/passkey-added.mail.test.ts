import { describe, expect, test } from 'vitest';
import { renderMail } from '../../mail/mail-message.ts';
import { passkeyAddedContent } from './passkey-added.mail.ts';

describe('the "passkey added" mail', () => {
  const at = new Date('2026-11-25T09:30:00Z');
  test('names the time in Berlin and links to the security settings, in German and English', () => {
    const de = renderMail('de', passkeyAddedContent('de', at, 'https://id.example.org/settings/security'));
    expect(de.subject).toBe('Deinem Konto wurde ein Passkey hinzugefügt');
    expect(de.text).toContain('Am 25. November 2026 um 10:30 MEZ wurde deinem Konto ein Passkey hinzugefügt.');
    expect(de.text).toContain('https://id.example.org/settings/security');
    const en = renderMail('en', passkeyAddedContent('en', at, 'https://id.example.org/settings/security'));
    expect(en.subject).toBe('A passkey was added to your account');
    expect(en.text).toContain('A passkey was added to your account on 25 November 2026 at 10:30 CET.');
    expect(en.html).toContain('href="https://id.example.org/settings/security"');
  });
});
