/**
 * Strings of the /settings/apps page, German and English. The scope words are
 * the consent page's own (oauth.scope.*), so both pages describe a scope alike.
 */
import type { Messages } from '../i18n.ts';

export const myAppsMessages: Messages = {
  de: {
    'myapps.title': 'Meine Apps',
    'myapps.intro': 'Diese Apps dürfen dich anmelden, ohne noch einmal nachzufragen. Wenn du den Zugriff widerrufst, fragt die App beim nächsten Mal wieder und ihre bisherigen Anmeldungen enden.',
    'myapps.none': 'Du hast noch keiner App dauerhaft zugestimmt.',
    'myapps.app': 'App',
    'myapps.scopes': 'Zugriff auf',
    'myapps.since': 'Zugestimmt am',
    'myapps.revoke': 'Zugriff widerrufen',
    'myapps.revokeLabel': 'Zugriff für {name} widerrufen',
    'myapps.revoked': 'Der Zugriff für {name} wurde widerrufen.',
    'myapps.unknown': 'Für diese App gibt es keine gespeicherte Zustimmung.',
    'myapps.csrf': 'Das Formular ist abgelaufen. Bitte lade die Seite neu und versuche es noch einmal.',
  },
  en: {
    'myapps.title': 'My apps',
    'myapps.intro': 'These apps may sign you in without asking again. If you revoke access, the app asks again next time and its current sign-ins end.',
    'myapps.none': 'You have not permanently allowed any app yet.',
    'myapps.app': 'App',
    'myapps.scopes': 'Access to',
    'myapps.since': 'Allowed on',
    'myapps.revoke': 'Revoke access',
    'myapps.revokeLabel': 'Revoke access for {name}',
    'myapps.revoked': 'Access for {name} has been revoked.',
    'myapps.unknown': 'There is no remembered consent for this app.',
    'myapps.csrf': 'The form has expired. Please reload the page and try again.',
  },
};
