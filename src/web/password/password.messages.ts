/** Messages of the forgotten-password pages (password-reset.page.ts) and the login page's link to them. */
import type { Messages } from '../i18n.ts';

export const passwordMessages: Messages = {
  de: {
    'login.forgot': 'Passwort vergessen?',
    'login.reset.done': 'Dein Passwort wurde geändert. Melde dich mit deinem neuen Passwort an.',
    'forgot.title': 'Passwort vergessen',
    'forgot.intro': 'Gib die E-Mail-Adresse deines Kontos ein. Wir schicken dir einen Link, mit dem du ein neues Passwort festlegst.',
    'forgot.submit': 'Link senden',
    'forgot.sent.title': 'Schau in dein Postfach',
    'forgot.sent': 'Wenn es ein Konto mit dieser E-Mail-Adresse gibt, haben wir ihm einen Link geschickt. Er gilt {minutes} Minuten.',
    'reset.title': 'Neues Passwort festlegen',
    'reset.intro': 'Mindestens 8 Zeichen; ein Satz aus mehreren Wörtern ist leicht zu merken und schwer zu erraten. Mit dem neuen Passwort werden alle deine Anmeldungen beendet, auf jedem Gerät, und Apps mit Zugriff auf dein Konto müssen dich neu anmelden.',
    'reset.submit': 'Passwort speichern',
    'reset.invalid': 'Dieser Link ist ungültig oder abgelaufen.',
    'reset.again': 'Neuen Link anfordern',
  },
  en: {
    'login.forgot': 'Forgot your password?',
    'login.reset.done': 'Your password has been changed. Log in with your new password.',
    'forgot.title': 'Forgot your password',
    'forgot.intro': 'Enter the email address of your account. We will send you a link to choose a new password.',
    'forgot.submit': 'Send the link',
    'forgot.sent.title': 'Check your email',
    'forgot.sent': 'If an account exists for this address, we have sent it a link. It works for {minutes} minutes.',
    'reset.title': 'Choose a new password',
    'reset.intro': 'At least 8 characters; a sentence of several words is easy to remember and hard to guess. Saving the new password ends all your sessions, on every device, and apps with access to your account must sign you in again.',
    'reset.submit': 'Save the password',
    'reset.invalid': 'This link is invalid or has expired.',
    'reset.again': 'Ask for a new link',
  },
};
