/** Strings of the error page, one message per status. */
import type { Messages } from '../i18n.ts';

export const errorMessages: Messages = {
  de: {
    'error.title': 'Fehler',
    'error.400': 'Die Anfrage ist ungültig.',
    'error.403': 'Du hast keine Berechtigung für diese Seite.',
    'error.404': 'Diese Seite gibt es nicht.',
    'error.409': 'Das Mitglied, um das es geht, wurde im selben Moment gelöscht. Es wurde nichts gespeichert.',
    'error.429': 'Zu viele Anfragen. Bitte warte einen Moment.',
    'error.500': 'Ein unerwarteter Fehler ist aufgetreten.',
    'error.503': 'Der Dienst ist vorübergehend nicht erreichbar.',
    'error.requestId': 'Anfrage-ID',
    'error.back': 'Zur Startseite',
  },
  en: {
    'error.title': 'Error',
    'error.400': 'The request is invalid.',
    'error.403': 'You are not allowed to see this page.',
    'error.404': 'This page does not exist.',
    'error.409': 'The member this was about was deleted at the same moment. Nothing was saved.',
    'error.429': 'Too many requests. Please wait a moment.',
    'error.500': 'An unexpected error occurred.',
    'error.503': 'The service is temporarily unavailable.',
    'error.requestId': 'Request ID',
    'error.back': 'Back to the start page',
  },
};
