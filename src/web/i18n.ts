/**
 * Screens are in German, with English for browsers that prefer it
 * (Accept-Language). Each area adds its strings to both dictionaries.
 */
export type Locale = 'de' | 'en';

const de = {
  'app.name': 'Foodsharing',
  'nav.home': 'Start',
  'nav.apps': 'Meine Apps',
  'nav.admin': 'OAuth-Clients',
  'nav.logout': 'Abmelden',
  'nav.login': 'Anmelden',
  'login.title': 'Anmelden',
  'login.email': 'E-Mail-Adresse',
  'login.password': 'Passwort',
  'login.remember': 'Angemeldet bleiben',
  'login.submit': 'Anmelden',
  'login.failed': 'E-Mail-Adresse oder Passwort ist falsch.',
  'login.throttled': 'Zu viele fehlgeschlagene Anmeldungen. Bitte versuche es in {minutes} Minuten erneut.',
  'login.throttled.one': 'Zu viele fehlgeschlagene Anmeldungen. Bitte versuche es in einer Minute erneut.',
  'login.csrf': 'Das Formular ist abgelaufen. Bitte versuche es noch einmal.',
  'logout.title': 'Abmelden',
  'logout.question': 'Möchtest du dich wirklich abmelden?',
  'logout.submit': 'Abmelden',
  'logout.cancel': 'Abbrechen',
  'logout.csrf': 'Das Formular ist abgelaufen. Bitte bestätige die Abmeldung noch einmal.',
  'home.title': 'Willkommen',
  'home.loggedInAs': 'Angemeldet als {name} ({email}).',
  'home.loggedOut': 'Du bist nicht angemeldet.',
  'error.title': 'Fehler',
  'error.400': 'Die Anfrage ist ungültig.',
  'error.403': 'Du hast keine Berechtigung für diese Seite.',
  'error.404': 'Diese Seite gibt es nicht.',
  'error.429': 'Zu viele Anfragen. Bitte warte einen Moment.',
  'error.500': 'Ein unerwarteter Fehler ist aufgetreten.',
  'error.503': 'Der Dienst ist vorübergehend nicht erreichbar.',
  'error.requestId': 'Anfrage-ID',
  'error.back': 'Zur Startseite',
};

export type MessageKey = keyof typeof de;

const en: Record<MessageKey, string> = {
  'app.name': 'Foodsharing',
  'nav.home': 'Home',
  'nav.apps': 'My apps',
  'nav.admin': 'OAuth clients',
  'nav.logout': 'Log out',
  'nav.login': 'Log in',
  'login.title': 'Log in',
  'login.email': 'Email address',
  'login.password': 'Password',
  'login.remember': 'Stay logged in',
  'login.submit': 'Log in',
  'login.failed': 'Wrong email or password.',
  'login.throttled': 'Too many failed logins. Please try again in {minutes} minutes.',
  'login.throttled.one': 'Too many failed logins. Please try again in one minute.',
  'login.csrf': 'The form has expired. Please try again.',
  'logout.title': 'Log out',
  'logout.question': 'Do you really want to log out?',
  'logout.submit': 'Log out',
  'logout.cancel': 'Cancel',
  'logout.csrf': 'The form has expired. Please confirm logging out again.',
  'home.title': 'Welcome',
  'home.loggedInAs': 'Logged in as {name} ({email}).',
  'home.loggedOut': 'You are not logged in.',
  'error.title': 'Error',
  'error.400': 'The request is invalid.',
  'error.403': 'You are not allowed to see this page.',
  'error.404': 'This page does not exist.',
  'error.429': 'Too many requests. Please wait a moment.',
  'error.500': 'An unexpected error occurred.',
  'error.503': 'The service is temporarily unavailable.',
  'error.requestId': 'Request ID',
  'error.back': 'Back to the start page',
};

const dictionaries: Record<Locale, Record<string, string>> = { de, en };

/** Adds an area's strings; keys must be new. */
export function addMessages(messages: Record<Locale, Record<string, string>>): void {
  Object.assign(dictionaries.de, messages.de);
  Object.assign(dictionaries.en, messages.en);
}

/** German unless the browser ranks English above German. */
export function pickLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'de';
  const ranked = acceptLanguage.split(',').map((part, index) => {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const q = Number(params.find((p) => p.trim().startsWith('q='))?.split('=')[1] ?? '1');
    return { lang: tag.split('-')[0], q: Number.isFinite(q) ? q : 0, index };
  }).filter((r) => r.lang === 'de' || r.lang === 'en')
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.lang === 'en' ? 'en' : 'de';
}

export type Translate = (key: string, params?: Record<string, string | number>) => string;

export function translator(locale: Locale): Translate {
  const dictionary = dictionaries[locale];
  return (key, params) => {
    const text = dictionary[key] ?? dictionaries.de[key] ?? key;
    return params ? text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)) : text;
  };
}
