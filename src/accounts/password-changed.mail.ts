/**
 * "Your password was changed" (OWASP Authentication Cheat Sheet: tell the
 * member of a change to their account), queued in the transaction that
 * changes it: a member whose password was changed by someone else learns of
 * it at the address that person cannot read.
 */
import { mailTime, type MailContent } from '../mail/mail-message.ts';
import type { MailComposer } from '../mail/mail-sender.ts';
import type { MailLocale } from '../mail/mail.tables.ts';

export const PASSWORD_CHANGED_MAIL_KIND = 'password-changed';

/** How the password was changed: by the member, who knew the old one, at /settings/security (`change`), or through a reset link. */
export type PasswordChangeWay = 'change' | 'reset';

/** The mail names the time of the change, in Berlin's time zone, where to look at the account, and how to get it back. */
export function passwordChangedMailComposer(publicUrl: string): MailComposer {
  return async (_db, mail) => ({
    to: mail.recipient,
    content: passwordChangedContent(mail.locale, new Date(mail.params.changedAt ?? Date.now()), publicUrl, mail.params.way === 'reset' ? 'reset' : 'change'),
  });
}

export function passwordChangedContent(locale: MailLocale, changedAt: Date, publicUrl: string, way: PasswordChangeWay = 'change'): MailContent {
  const when = mailTime(changedAt, locale);
  const settings = `${publicUrl}/settings/security`;
  const forgot = `${publicUrl}/password/forgot`;
  return locale === 'de' ? {
    subject: 'Dein Passwort wurde geändert',
    intro: [
      way === 'reset'
        ? `Das Passwort deines Kontos wurde am ${when} über einen Link zum Zurücksetzen neu gesetzt. Alle Anmeldungen wurden dabei beendet.`
        : `Das Passwort deines Kontos wurde am ${when} geändert. Alle anderen Anmeldungen wurden dabei beendet.`,
      'Warst du das, ist nichts weiter zu tun.',
    ],
    action: { label: 'Sicherheitseinstellungen öffnen', href: settings },
    outro: [
      `Warst du es nicht, hat jemand anderes jetzt dein Passwort: Setze es sofort selbst neu (${forgot}), prüfe, wer außer dir dein E-Mail-Postfach lesen kann, und melde dich beim Team der Plattform.`,
    ],
  } : {
    subject: 'Your password was changed',
    intro: [
      way === 'reset'
        ? `The password of your account was set anew through a reset link on ${when}. Every session was ended with it.`
        : `The password of your account was changed on ${when}. Every other session was ended with it.`,
      'If that was you, there is nothing else to do.',
    ],
    action: { label: 'Open your security settings', href: settings },
    outro: [
      `If it was not you, somebody else now has your password: set a new one yourself at once (${forgot}), check who besides you can read your mailbox, and tell the platform's team.`,
    ],
  };
}
