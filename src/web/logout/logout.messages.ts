/** Strings of the logout confirmation page. */
import type { Messages } from '../i18n.ts';

export const logoutMessages: Messages = {
  de: {
    'logout.title': 'Abmelden',
    'logout.question': 'Möchtest du dich wirklich abmelden?',
    'logout.submit': 'Abmelden',
    'logout.cancel': 'Abbrechen',
    'logout.csrf': 'Das Formular ist abgelaufen. Bitte bestätige die Abmeldung noch einmal.',
  },
  en: {
    'logout.title': 'Log out',
    'logout.question': 'Do you really want to log out?',
    'logout.submit': 'Log out',
    'logout.cancel': 'Cancel',
    'logout.csrf': 'The form has expired. Please confirm logging out again.',
  },
};
