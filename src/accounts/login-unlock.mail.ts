/** The unlock mail (login-unlock.ts): composed when it is sent, so its one-time link never rests in the queue. */
import type { MailContent } from '../mail/mail-message.ts';
import type { MailComposer } from '../mail/mail-sender.ts';
import type { MailLocale } from '../mail/mail.tables.ts';
import { accountOf } from './login-throttle.ts';
import { storeUnlockToken, UNLOCK_LINK_MINUTES } from './login-unlock.ts';
import { randomToken } from './sessions.ts';
import { findUserCredentialsByEmail } from './users.repository.ts';

/** Where a link leads: `<PUBLIC_URL>/login/unlock/<token>` (a page that asks before it unlocks). */
export function unlockLink(publicUrl: string, token: string): string {
  return `${publicUrl}/login/unlock/${token}`;
}

/** Sends nothing for an address without an account, or a disabled one: the request that queued it was answered the same either way. */
export function unlockMailComposer(publicUrl: string): MailComposer {
  return async (db, mail, now) => {
    const user = await findUserCredentialsByEmail(db, mail.recipient);
    if (!user || user.disabled_at !== null) return undefined;
    const token = randomToken();
    await storeUnlockToken(db, { token, account: accountOf(user.email), userId: user.id, returnTo: mail.params.returnTo ?? '/' }, now);
    return { to: user.email, content: unlockMailContent(mail.locale, unlockLink(publicUrl, token)) };
  };
}

export function unlockMailContent(locale: MailLocale, link: string): MailContent {
  return locale === 'de' ? {
    subject: 'Anmeldung entsperren',
    intro: [
      'Für dein Konto gab es viele fehlgeschlagene Anmeldeversuche, deshalb sind neue Browser vorübergehend gesperrt. '
      + 'Jemand (hoffentlich du) hat einen Link zum Entsperren angefordert.',
      'Öffne den Link in dem Browser, mit dem du dich anmelden möchtest. Danach meldest du dich wie gewohnt mit deinem Passwort an.',
    ],
    action: { label: 'Diesen Browser entsperren', href: link },
    outro: [
      `Der Link gilt ${UNLOCK_LINK_MINUTES} Minuten und nur einmal.`,
      'Wenn du das nicht angefordert hast, kannst du diese E-Mail ignorieren. Jemand versucht vielleicht, dein Passwort zu erraten: '
      + 'Ein sicheres Passwort, das du nirgends sonst verwendest, schützt dich.',
    ],
  } : {
    subject: 'Unlock your login',
    intro: [
      'There have been many failed attempts to log into your account, so new browsers are locked out for a while. '
      + 'Somebody (hopefully you) asked for a link to unlock a browser.',
      'Open the link in the browser you want to log in with. Then log in with your password as usual.',
    ],
    action: { label: 'Unlock this browser', href: link },
    outro: [
      `The link works for ${UNLOCK_LINK_MINUTES} minutes, and only once.`,
      'If you did not ask for it, you can ignore this email. Somebody may be trying to guess your password: '
      + 'a strong password that you use nowhere else protects you.',
    ],
  };
}
