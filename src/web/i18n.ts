/**
 * Screens are in German, with English for browsers that prefer it
 * (Accept-Language). Each page brings its strings in both languages;
 * app.ts combines them and hands them to the renderer (render.ts).
 */
export type Locale = 'de' | 'en';

/** A page's strings: the same keys in both languages. */
export type Messages = Readonly<Record<Locale, Readonly<Record<string, string>>>>;

export type Translate = (key: string, params?: Record<string, string | number>) => string;

/** One dictionary per language; a key that two pages define is a mistake, caught at start. */
export function combineMessages(parts: readonly Messages[]): Messages {
  const de: Record<string, string> = {};
  const en: Record<string, string> = {};
  for (const part of parts) {
    for (const key of Object.keys(part.de)) if (key in de) throw new Error(`Message key defined twice: ${key}`);
    Object.assign(de, part.de);
    Object.assign(en, part.en);
  }
  return { de, en };
}

export const LOCALES: readonly Locale[] = ['de', 'en'];

export function isLocale(value: unknown): value is Locale {
  return value === 'de' || value === 'en';
}

/**
 * OpenID Connect Core §3.1.2.1 `ui_locales`: space-separated BCP 47 tags in
 * order of preference; the first one we speak wins (`en-GB` is English).
 */
export function pickUiLocale(uiLocales: unknown): Locale | undefined {
  if (typeof uiLocales !== 'string') return undefined;
  for (const tag of uiLocales.trim().toLowerCase().split(/\s+/)) {
    const language = tag.split('-')[0];
    if (isLocale(language)) return language;
  }
  return undefined;
}

/** German unless the browser ranks English above German. */
export function pickLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'de';
  const ranked = acceptLanguage.split(',').map((part, index) => {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const q = Number(params.find((p) => p.trim().startsWith('q='))?.split('=')[1] ?? '1');
    return { lang: tag.split('-')[0], q: Number.isFinite(q) ? q : 0, index };
  // RFC 9110 §12.4.2: q=0 is "not acceptable", no preference at all.
  }).filter((r) => (r.lang === 'de' || r.lang === 'en') && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.lang === 'en' ? 'en' : 'de';
}

/** The number a message's plural form depends on: its `count`, else its `minutes`. */
function quantityOf(params: Record<string, string | number> | undefined): number | undefined {
  const value = params?.count ?? params?.minutes;
  return typeof value === 'number' ? value : undefined;
}

/** Each language's plural rules, made once (a translator is made per page). */
const PLURAL_RULES = new Map<Locale, Intl.PluralRules>();

/**
 * A message in the page's language, its `{name}` placeholders filled. A message with a `<key>.one`
 * variant takes it when its quantity (`count`, else `minutes`) is one in the language's plural rules
 * ("Eine Anmeldung", not "1 Anmeldung(en)"), and one with a `<key>.none` variant when it is zero.
 */
export function translator(messages: Messages, locale: Locale): Translate {
  const dictionary = messages[locale];
  let plurals = PLURAL_RULES.get(locale);
  if (!plurals) PLURAL_RULES.set(locale, plurals = new Intl.PluralRules(locale));
  return (key, params) => {
    const quantity = quantityOf(params);
    const form = quantity === 0 ? dictionary[`${key}.none`] : quantity !== undefined && plurals.select(quantity) === 'one' ? dictionary[`${key}.one`] : undefined;
    const text = form ?? dictionary[key] ?? messages.de[key] ?? key;
    return params ? text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)) : text;
  };
}
