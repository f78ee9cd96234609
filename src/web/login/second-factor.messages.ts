/** Strings of the second login step and the step-up page. */
import type { Messages } from '../i18n.ts';

export const secondFactorMessages: Messages = {
  de: {
    'secondFactor.title': 'Zweiter Schritt der Anmeldung',
    'secondFactor.intro': 'Dein Passwort stimmt. Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein.',
    'secondFactor.stepUp.title': 'Anmeldung bestätigen',
    'secondFactor.stepUp.intro': 'Diese App verlangt eine stärkere Anmeldung. Bestätige sie mit dem sechsstelligen Code aus deiner Authenticator-App.',
    'secondFactor.passkeyOnly': 'Bestätige die Anmeldung mit deinem Passkey.',
    'secondFactor.code': 'Code',
    'secondFactor.hint': 'Kein Zugriff auf die App? Gib stattdessen einen deiner Wiederherstellungscodes ein (jeder gilt nur einmal).',
    'secondFactor.submit': 'Bestätigen',
    'secondFactor.passkey': 'Passkey verwenden',
    'secondFactor.cancel': 'Abbrechen',
    'secondFactor.missing': 'Bitte gib einen Code ein.',
    'secondFactor.wrong': 'Dieser Code stimmt nicht oder wurde schon benutzt.',
  },
  en: {
    'secondFactor.title': 'Second step of the login',
    'secondFactor.intro': 'Your password is right. Now enter the six-digit code from your authenticator app.',
    'secondFactor.stepUp.title': 'Confirm your login',
    'secondFactor.stepUp.intro': 'This app asks for a stronger login. Confirm it with the six-digit code from your authenticator app.',
    'secondFactor.passkeyOnly': 'Confirm the login with your passkey.',
    'secondFactor.code': 'Code',
    'secondFactor.hint': 'No access to the app? Enter one of your recovery codes instead (each works once).',
    'secondFactor.submit': 'Confirm',
    'secondFactor.passkey': 'Use a passkey',
    'secondFactor.cancel': 'Cancel',
    'secondFactor.missing': 'Please enter a code.',
    'secondFactor.wrong': 'This code is wrong or was already used.',
  },
};
