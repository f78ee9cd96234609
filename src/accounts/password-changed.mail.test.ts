import { describe, expect, test } from 'vitest';
import { renderMail } from '../mail/mail-message.ts';
import { passwordChangedContent } from './password-changed.mail.ts';

describe('the "password changed" mail', () => {
  const at = new Date('2026-11-25T09:30:00Z');
  test('names the time in Berlin, links to the security settings and to a new password, in German and English', () => {
    const de = renderMail('de', passwordChangedContent('de', at, 'https://id.example.org'));
    expect(de.subject).toBe('Dein Passwort wurde geändert');
    expect(de.text).toContain('Das Passwort deines Kontos wurde am 25. November 2026 um 10:30 MEZ geändert. Alle anderen Anmeldungen wurden dabei beendet.');
    expect(de.text).toContain('https://id.example.org/settings/security');
    expect(de.text).toContain('Setze es sofort selbst neu (https://id.example.org/password/forgot)');
    const en = renderMail('en', passwordChangedContent('en', at, 'https://id.example.org'));
    expect(en.subject).toBe('Your password was changed');
    expect(en.text).toContain('The password of your account was changed on 25 November 2026 at 10:30 CET. Every other session was ended with it.');
    expect(en.text).toContain('set a new one yourself at once (https://id.example.org/password/forgot)');
  });

  test('after a reset link: every session ended, not every other', () => {
    expect(renderMail('de', passwordChangedContent('de', at, 'https://id.example.org', 'reset')).text)
      .toContain('Das Passwort deines Kontos wurde am 25. November 2026 um 10:30 MEZ über einen Link zum Zurücksetzen neu gesetzt. Alle Anmeldungen wurden dabei beendet.');
    expect(renderMail('en', passwordChangedContent('en', at, 'https://id.example.org', 'reset')).text)
      .toContain('The password of your account was set anew through a reset link on 25 November 2026 at 10:30 CET. Every session was ended with it.');
  });
});
