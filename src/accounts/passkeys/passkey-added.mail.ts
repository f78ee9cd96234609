/**
 * "A passkey was added to your account" (OWASP Authentication Cheat Sheet:
 * tell the member of a new way into their account), queued in the
 * transaction that stores it. The mail names the time, not the passkey's
 * name: that is text whoever added it chose.
 */
import { mailTime, type MailContent } from '../../mail/mail-message.ts';
import type { MailComposer } from '../../mail/mail-sender.ts';
import type { MailLocale } from '../../mail/mail.tables.ts';

export const PASSKEY_ADDED_MAIL_KIND = 'passkey-added';

export function passkeyAddedMailComposer(publicUrl: string): MailComposer {
  return async (_db, mail) => ({
    to: mail.recipient,
    content: passkeyAddedContent(mail.locale, new Date(mail.params.addedAt ?? Date.now()), `${publicUrl}/settings/security`),
  });
}

export function passkeyAddedContent(locale: MailLocale, addedAt: Date, settings: string): MailContent {
  const when = mailTime(addedAt, locale);
  return locale === 'de' ? {
    subject: 'Deinem Konto wurde ein Passkey hinzugefügt',
    intro: [
      `Am ${when} wurde deinem Konto ein Passkey hinzugefügt. Mit ihm kann man sich ohne Passwort anmelden.`,
      'Warst du das, ist nichts weiter zu tun.',
    ],
    action: { label: 'Sicherheitseinstellungen öffnen', href: settings },
    outro: ['Warst du es nicht, entferne den Passkey dort sofort, ändere dein Passwort und melde dich beim Team der Plattform.'],
  } : {
    subject: 'A passkey was added to your account',
    intro: [
      `A passkey was added to your account on ${when}. It signs in without a password.`,
      'If that was you, there is nothing else to do.',
    ],
    action: { label: 'Open your security settings', href: settings },
    outro: ['If it was not you, remove the passkey there at once, change your password and contact the platform\'s team.'],
  };
}
