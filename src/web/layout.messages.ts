/** Strings of the page frame (layout.eta): the site name and the navigation. */
import type { Messages } from './i18n.ts';

export const layoutMessages: Messages = {
  de: {
    'app.name': 'Foodsharing',
    'nav.home': 'Start',
    'nav.apps': 'Meine Apps',
    'nav.security': 'Sicherheit',
    'nav.admin': 'OAuth-Clients',
    'nav.members': 'Mitglieder',
    'nav.audit': 'Audit-Log',
    'nav.logout': 'Abmelden',
    'nav.login': 'Anmelden',
    'nav.label': 'Hauptnavigation',
    'nav.language': 'Sprache',
    'layout.tableOf': 'Tabelle: {name}',
    'password.show': 'Passwort anzeigen',
  },
  en: {
    'app.name': 'Foodsharing',
    'nav.home': 'Home',
    'nav.apps': 'My apps',
    'nav.security': 'Security',
    'nav.admin': 'OAuth clients',
    'nav.members': 'Members',
    'nav.audit': 'Audit log',
    'nav.logout': 'Log out',
    'nav.login': 'Log in',
    'nav.label': 'Main navigation',
    'nav.language': 'Language',
    'layout.tableOf': 'Table: {name}',
    'password.show': 'Show password',
  },
};
