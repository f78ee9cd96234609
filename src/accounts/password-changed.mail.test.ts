import { describe, expect, test } from 'vitest';
import { renderMail } from '../mail/mail-message.ts';
import { passwordChangedContent } from './password-changed.mail.ts';

describe('the "password changed" mail', () => {
  const at = new Date('2026-11-25T09:30:00Z');
  test('names the time in Berlin and links to the security settings, in German and English', () => {
    const de = renderMail('de', passwordChangedContent('de', at, 'https://id.example.org/settings/security'));
    expect(de.subject).toBe('Dein Passwort wurde geändert');
    expect(de.text).toContain('Das Passwort deines Kontos wurde am 25. November 2026 um 10:30 geändert.');
    expect(de.text).toContain('https://id.example.org/settings/security');
    const en = renderMail('en', passwordChangedContent('en', at, 'https://id.example.org/settings/security'));
    expect(en.subject).toBe('Your password was changed');
    expect(en.text).toContain('The password of your account was changed on 25 November 2026 at 10:30.');
  });
});
