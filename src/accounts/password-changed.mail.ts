/**
 * "Your password was changed" (OWASP Authentication Cheat Sheet: tell the
 * member of a change to their account), queued in the transaction that
 * changes it: a member whose password was changed by someone else learns of
 * it at the address that person cannot read.
 */
import type { MailContent } from '../mail/mail-message.ts';
import type { MailComposer } from '../mail/mail-sender.ts';
import type { MailLocale } from '../mail/mail.tables.ts';

export const PASSWORD_CHANGED_MAIL_KIND = 'password-changed';

/** The mail names the time of the change, in Berlin's time zone, and where to change it back. */
export function passwordChangedMailComposer(publicUrl: string): MailComposer {
  return async (_db, mail) => ({
    to: mail.recipient,
    content: passwordChangedContent(mail.locale, new Date(mail.params.changedAt ?? Date.now()), `${publicUrl}/settings/security`),
  });
}

export function passwordChangedContent(locale: MailLocale, changedAt: Date, settings: string): MailContent {
  const when = new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Berlin' }).format(changedAt);
  return locale === 'de' ? {
    subject: 'Dein Passwort wurde geändert',
    intro: [
      `Das Passwort deines Kontos wurde am ${when} geändert. Alle anderen Anmeldungen wurden dabei beendet.`,
      'Warst du das, ist nichts weiter zu tun.',
    ],
    action: { label: 'Sicherheitseinstellungen öffnen', href: settings },
    outro: ['Warst du es nicht, kennt jemand dein Passwort: Melde dich sofort beim Team der Plattform, damit es dir hilft, dein Konto zurückzubekommen.'],
  } : {
    subject: 'Your password was changed',
    intro: [
      `The password of your account was changed on ${when}. Every other session was ended with it.`,
      'If that was you, there is nothing else to do.',
    ],
    action: { label: 'Open your security settings', href: settings },
    outro: ['If it was not you, somebody knows your password: contact the platform\'s team at once, so that they can help you get your account back.'],
  };
}
