/**
 * Strings of the /settings/apps page, German and English. The scope words are
 * the consent page's own (oauth.scope.*), so both pages describe a scope alike.
 */
import type { Messages } from '../i18n.ts';

export const myAppsMessages: Messages = {
  de: {
    'myapps.title': 'Meine Apps',
    'myapps.intro': 'Diese Apps haben Zugriff auf dein Konto: Du hast ihnen dauerhaft zugestimmt, oder sie halten noch gültige Zugangsdaten aus einer Anmeldung. Wenn du den Zugriff widerrufst, enden ihre Anmeldungen und Zugangsdaten sofort, und die App fragt beim nächsten Mal wieder.',
    'myapps.none': 'Keine App hat Zugriff auf dein Konto.',
    'myapps.app': 'App',
    'myapps.scopes': 'Zugriff auf',
    'myapps.since': 'Zugriff seit',
    'myapps.revoke': 'Zugriff widerrufen',
    // WCAG 2.5.3: the visible words together, in order, in the name ("Zugriff für {name} widerrufen" split them).
    'myapps.revokeLabel': 'Zugriff widerrufen: {name}',
    'myapps.revoked': 'Der Zugriff für {name} wurde widerrufen.',
    'myapps.unknown': 'Diese App hat keinen Zugriff auf dein Konto.',
    'myapps.notRemembered': 'Nicht dauerhaft zugestimmt: fragt vor der nächsten Anmeldung wieder.',
    'myapps.csrf': 'Das Formular ist abgelaufen. Bitte lade die Seite neu und versuche es noch einmal.',
  },
  en: {
    'myapps.title': 'My apps',
    'myapps.intro': 'These apps have access to your account: you allowed them permanently, or they still hold valid credentials from a sign-in. If you revoke access, their sign-ins and credentials end at once and the app asks again next time.',
    'myapps.none': 'No app has access to your account.',
    'myapps.app': 'App',
    'myapps.scopes': 'Access to',
    'myapps.since': 'Access since',
    'myapps.revoke': 'Revoke access',
    'myapps.revokeLabel': 'Revoke access for {name}',
    'myapps.revoked': 'Access for {name} has been revoked.',
    'myapps.unknown': 'This app has no access to your account.',
    'myapps.notRemembered': 'Not allowed permanently: asks again before the next sign-in.',
    'myapps.csrf': 'The form has expired. Please reload the page and try again.',
  },
};
