import { describe, expect, test } from 'vitest';
import { renderMail } from '../../mail/mail-message.ts';
import { ONE_TIME_CODE_MAIL_KINDS, oneTimeCodeMailContent } from './one-time-codes.mail.ts';

describe('the second factor mails', () => {
  const at = new Date('2026-11-25T09:30:00Z');
  const settings = 'https://id.example.org/settings/security';

  test('in summer, Berlin\'s summer time, named as such', () => {
    const summer = new Date('2026-07-01T09:30:00Z');
    expect(renderMail('de', oneTimeCodeMailContent(ONE_TIME_CODE_MAIL_KINDS.enabled, 'de', summer, settings)).text).toContain('Am 1. Juli 2026 um 11:30 MESZ ');
    expect(renderMail('en', oneTimeCodeMailContent(ONE_TIME_CODE_MAIL_KINDS.enabled, 'en', summer, settings)).text).toContain('On 1 July 2026 at 11:30 CEST, ');
  });

  test('each kind in German and English: what happened, when (Berlin time), and the security settings', () => {
    const subjects = Object.values(ONE_TIME_CODE_MAIL_KINDS).map((kind) => {
      const de = renderMail('de', oneTimeCodeMailContent(kind, 'de', at, settings));
      const en = renderMail('en', oneTimeCodeMailContent(kind, 'en', at, settings));
      expect(de.text).toContain('Am 25. November 2026 um 10:30 MEZ');
      expect(en.text).toContain('On 25 November 2026 at 10:30 CET');
      expect(de.text).toContain(settings);
      expect(en.text).toContain(settings);
      return [de.subject, en.subject];
    });
    expect(subjects).toEqual([
      ['Einmalcodes sind eingeschaltet', 'One-time codes are turned on'],
      ['Einmalcodes sind ausgeschaltet', 'One-time codes are turned off'],
      ['Ein Wiederherstellungscode wurde benutzt', 'A recovery code was used'],
      ['Neue Wiederherstellungscodes', 'New recovery codes'],
      ['Ein Passkey wurde entfernt', 'A passkey was removed'],
      ['Dein zweiter Faktor wurde zurückgesetzt', 'Your second factor was reset'],
    ]);
  });
});
