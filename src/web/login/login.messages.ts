/** Strings of the login page. */
import type { Messages } from '../i18n.ts';

export const loginMessages: Messages = {
  de: {
    'login.title': 'Anmelden',
    'login.email': 'E-Mail-Adresse',
    'login.password': 'Passwort',
    'login.remember': 'Angemeldet bleiben',
    'login.submit': 'Anmelden',
    'login.failed': 'E-Mail-Adresse oder Passwort ist falsch.',
    'login.missing': 'Bitte E-Mail-Adresse und Passwort eingeben.',
    'login.throttled': 'Zu viele fehlgeschlagene Anmeldungen. Bitte versuche es in {minutes} Minuten erneut.',
    'login.throttled.one': 'Zu viele fehlgeschlagene Anmeldungen. Bitte versuche es in einer Minute erneut.',
    'login.csrf': 'Das Formular ist abgelaufen. Bitte versuche es noch einmal.',
  },
  en: {
    'login.title': 'Log in',
    'login.email': 'Email address',
    'login.password': 'Password',
    'login.remember': 'Stay logged in',
    'login.submit': 'Log in',
    'login.failed': 'Wrong email or password.',
    'login.missing': 'Please enter your email address and password.',
    'login.throttled': 'Too many failed logins. Please try again in {minutes} minutes.',
    'login.throttled.one': 'Too many failed logins. Please try again in one minute.',
    'login.csrf': 'The form has expired. Please try again.',
  },
};
