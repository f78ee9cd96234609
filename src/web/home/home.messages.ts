/** Strings of the start page. */
import type { Messages } from '../i18n.ts';

export const homeMessages: Messages = {
  de: {
    'home.title': 'Willkommen',
    'home.loggedInAs': 'Angemeldet als {name} ({email}).',
    'home.loggedOut': 'Du bist nicht angemeldet.',
  },
  en: {
    'home.title': 'Welcome',
    'home.loggedInAs': 'Logged in as {name} ({email}).',
    'home.loggedOut': 'You are not logged in.',
  },
};
