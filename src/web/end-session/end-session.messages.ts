/** Strings of the pages of a client's logout request, German and English. */
import type { Messages } from '../i18n.ts';

export const endSessionMessages: Messages = {
  de: {
    'endSession.title': 'Abmelden',
    'endSession.question': 'Möchtest du dich bei Foodsharing abmelden?',
    'endSession.questionClient': '{name} möchte dich abmelden. Möchtest du dich auch bei Foodsharing abmelden?',
    'endSession.loggedInAs': 'Angemeldet als {name} ({email}).',
    'endSession.redirect': 'Danach geht es weiter zu {origin}.',
    'endSession.submit': 'Abmelden',
    'endSession.cancel': 'Angemeldet bleiben',
    'endSession.csrf': 'Das Formular ist abgelaufen. Bitte bestätige die Abmeldung noch einmal.',
    'endSession.doneTitle': 'Abgemeldet',
    'endSession.done': 'Du bist jetzt abgemeldet.',
    'endSession.errorTitle': 'Abmelden über eine App nicht möglich',
    'endSession.errorHint': 'Die App hat eine ungültige Abmeldeanfrage geschickt; es wurde nichts geändert. Bitte wende dich an ihre Betreiber.',
  },
  en: {
    'endSession.title': 'Log out',
    'endSession.question': 'Do you want to log out of Foodsharing?',
    'endSession.questionClient': '{name} wants to log you out. Do you want to log out of Foodsharing as well?',
    'endSession.loggedInAs': 'Logged in as {name} ({email}).',
    'endSession.redirect': 'Afterwards you continue to {origin}.',
    'endSession.submit': 'Log out',
    'endSession.cancel': 'Stay logged in',
    'endSession.csrf': 'The form has expired. Please confirm logging out again.',
    'endSession.doneTitle': 'Logged out',
    'endSession.done': 'You are now logged out.',
    'endSession.errorTitle': 'Cannot log out through this app',
    'endSession.errorHint': 'The app sent an invalid logout request; nothing was changed. Please contact its operators.',
  },
};
