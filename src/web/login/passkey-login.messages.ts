/** Strings of signing in with a passkey (login page, and the script's answers), German and English. */
import type { Messages } from '../i18n.ts';

export const passkeyLoginMessages: Messages = {
  de: {
    'login.passkey': 'Mit einem Passkey anmelden',
    'login.passkey.or': 'oder',
    'login.passkey.failed': 'Die Anmeldung mit diesem Passkey hat nicht geklappt. Versuche es noch einmal oder melde dich mit deinem Passwort an.',
    'login.passkey.cancelled': 'Die Anmeldung mit einem Passkey wurde abgebrochen oder ist abgelaufen.',
  },
  en: {
    'login.passkey': 'Sign in with a passkey',
    'login.passkey.or': 'or',
    'login.passkey.failed': 'Signing in with this passkey did not work. Try again or sign in with your password.',
    'login.passkey.cancelled': 'Signing in with a passkey was cancelled or timed out.',
  },
};
