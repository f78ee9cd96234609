/**
 * Mails about the second factor (OWASP Multifactor Authentication Cheat
 * Sheet: notify the member of every change to it), queued in the transaction
 * of the change: one-time codes turned on, turned off, a recovery code used,
 * recovery codes regenerated, a passkey removed, and an operator's reset (a
 * passkey added has its own mail: passkeys/passkey-added.mail.ts).
 */
import { mailTime, type MailContent } from '../../mail/mail-message.ts';
import type { MailComposer } from '../../mail/mail-sender.ts';
import type { MailLocale } from '../../mail/mail.tables.ts';

export const ONE_TIME_CODE_MAIL_KINDS = {
  enabled: 'one-time-codes-enabled',
  disabled: 'one-time-codes-disabled',
  recoveryCodeUsed: 'recovery-code-used',
  regenerated: 'recovery-codes-regenerated',
  passkeyRemoved: 'passkey-removed',
  reset: 'second-factor-reset',
} as const;

export type OneTimeCodeMailKind = (typeof ONE_TIME_CODE_MAIL_KINDS)[keyof typeof ONE_TIME_CODE_MAIL_KINDS];

type Texts = Record<MailLocale, { subject: string; what: (when: string) => string }>;

const TEXTS: Record<OneTimeCodeMailKind, Texts> = {
  'one-time-codes-enabled': {
    de: { subject: 'Einmalcodes sind eingeschaltet', what: (when) => `Am ${when} wurden für dein Konto Einmalcodes als zweiter Faktor eingeschaltet. Bei jeder Anmeldung fragen wir jetzt nach deinem Passwort einen Code aus deiner App.` },
    en: { subject: 'One-time codes are turned on', what: (when) => `On ${when}, one-time codes were turned on as a second factor for your account. Every login now asks for a code from your app after your password.` },
  },
  'one-time-codes-disabled': {
    de: { subject: 'Einmalcodes sind ausgeschaltet', what: (when) => `Am ${when} wurden die Einmalcodes deines Kontos ausgeschaltet. Deine Wiederherstellungscodes gelten nicht mehr.` },
    en: { subject: 'One-time codes are turned off', what: (when) => `On ${when}, the one-time codes of your account were turned off. Your recovery codes no longer work.` },
  },
  'recovery-code-used': {
    de: { subject: 'Ein Wiederherstellungscode wurde benutzt', what: (when) => `Am ${when} wurde bei einer Anmeldung einer deiner Wiederherstellungscodes benutzt. Er gilt jetzt nicht mehr.` },
    en: { subject: 'A recovery code was used', what: (when) => `On ${when}, one of your recovery codes was used to log in. It no longer works.` },
  },
  'recovery-codes-regenerated': {
    de: { subject: 'Neue Wiederherstellungscodes', what: (when) => `Am ${when} wurden für dein Konto zehn neue Wiederherstellungscodes erzeugt. Die bisherigen gelten nicht mehr.` },
    en: { subject: 'New recovery codes', what: (when) => `On ${when}, ten new recovery codes were made for your account. The earlier ones no longer work.` },
  },
  'passkey-removed': {
    de: { subject: 'Ein Passkey wurde entfernt', what: (when) => `Am ${when} wurde ein Passkey aus deinem Konto entfernt. Mit ihm kann man sich nicht mehr anmelden.` },
    en: { subject: 'A passkey was removed', what: (when) => `On ${when}, a passkey was removed from your account. It no longer signs in.` },
  },
  'second-factor-reset': {
    de: { subject: 'Dein zweiter Faktor wurde zurückgesetzt', what: (when) => `Am ${when} hat das Team der Plattform den zweiten Faktor deines Kontos zurückgesetzt: Einmalcodes, Wiederherstellungscodes und Passkeys wurden gelöscht. Richte sie in deinen Sicherheitseinstellungen neu ein.` },
    en: { subject: 'Your second factor was reset', what: (when) => `On ${when}, the platform's team reset the second factor of your account: one-time codes, recovery codes and passkeys were deleted. Set them up again in your security settings.` },
  },
};

export function oneTimeCodeMailComposer(publicUrl: string, kind: OneTimeCodeMailKind): MailComposer {
  return async (_db, mail) => ({
    to: mail.recipient,
    content: oneTimeCodeMailContent(kind, mail.locale, new Date(mail.params.at ?? Date.now()), `${publicUrl}/settings/security`),
  });
}

/** The composers of every kind, for app.ts. */
export function oneTimeCodeMailComposers(publicUrl: string): Record<OneTimeCodeMailKind, MailComposer> {
  return Object.fromEntries(Object.values(ONE_TIME_CODE_MAIL_KINDS).map((kind) => [kind, oneTimeCodeMailComposer(publicUrl, kind)])) as Record<OneTimeCodeMailKind, MailComposer>;
}

export function oneTimeCodeMailContent(kind: OneTimeCodeMailKind, locale: MailLocale, at: Date, settings: string): MailContent {
  const when = mailTime(at, locale);
  const text = TEXTS[kind][locale];
  return locale === 'de' ? {
    subject: text.subject,
    intro: [text.what(when), 'Warst du das, ist nichts weiter zu tun.'],
    action: { label: 'Sicherheitseinstellungen öffnen', href: settings },
    outro: ['Warst du es nicht, ändere sofort dein Passwort und melde dich beim Team der Plattform.'],
  } : {
    subject: text.subject,
    intro: [text.what(when), 'If that was you, there is nothing else to do.'],
    action: { label: 'Open your security settings', href: settings },
    outro: ['If it was not you, change your password at once and contact the platform\'s team.'],
  };
}
