/** The reset mail (password-reset.ts): composed when it is sent, so its one-time link never rests in the queue. */
import type { MailContent } from '../mail/mail-message.ts';
import type { MailComposer } from '../mail/mail-sender.ts';
import type { MailLocale } from '../mail/mail.tables.ts';
import { RESET_LINK_MINUTES, storeResetToken } from './password-reset.ts';
import { randomToken } from './sessions.ts';
import { findUserCredentialsByEmail } from './users.repository.ts';

/** Where a link leads: `<PUBLIC_URL>/password/reset/<token>` (a form that asks for the new password). */
export function resetLink(publicUrl: string, token: string): string {
  return `${publicUrl}/password/reset/${token}`;
}

/** Sends nothing for an address without an account, or a disabled one: the request that queued it was answered the same either way. */
export function resetMailComposer(publicUrl: string): MailComposer {
  return async (db, mail, now) => {
    const user = await findUserCredentialsByEmail(db, mail.recipient);
    if (!user || user.disabled_at !== null) return undefined;
    const token = randomToken();
    await storeResetToken(db, { token, userId: user.id, passwordHash: user.password_hash, returnTo: mail.params.returnTo ?? '/' }, now);
    return { to: user.email, content: resetMailContent(mail.locale, resetLink(publicUrl, token)) };
  };
}

export function resetMailContent(locale: MailLocale, link: string): MailContent {
  return locale === 'de' ? {
    subject: 'Passwort zurücksetzen',
    intro: ['Jemand (hoffentlich du) möchte das Passwort deines Kontos zurücksetzen. Mit diesem Link legst du ein neues fest.'],
    action: { label: 'Neues Passwort festlegen', href: link },
    outro: [
      `Der Link gilt ${RESET_LINK_MINUTES} Minuten und nur einmal. Ein neuerer Link ersetzt ihn.`,
      'Wenn du das nicht angefordert hast, kannst du diese E-Mail ignorieren: Dein Passwort bleibt, wie es ist.',
    ],
  } : {
    subject: 'Reset your password',
    intro: ['Somebody (hopefully you) asked to reset the password of your account. This link lets you choose a new one.'],
    action: { label: 'Choose a new password', href: link },
    outro: [
      `The link works for ${RESET_LINK_MINUTES} minutes, and only once. A newer link replaces it.`,
      'If you did not ask for it, you can ignore this email: your password stays as it is.',
    ],
  };
}
