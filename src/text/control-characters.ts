/**
 * The characters a name may not hold, and how text is shown where a terminal
 * would obey them: one rule for every door (`/api`, the admin screen, the
 * CLI) and every name (members, regions, OAuth clients, content entries,
 * polls). docs/security.md "Spoofed names".
 *
 * Names are shown to other people: a client's name on the consent page, a
 * member's or region's name to operators. Refused, wherever a name comes in:
 * - C0 controls U+0000–U+001F and DEL (PostgreSQL text cannot hold NUL; tabs
 *   and line breaks have no place in a name);
 * - C1 controls U+0080–U+009F (Unicode's category Cc): U+0085 is a line
 *   break, U+009B the one-byte CSI that starts a terminal escape sequence;
 * - the explicit bidirectional embeddings, overrides and isolates (UAX #9
 *   §2.1, §2.2, §2.4: U+202A–U+202E, U+2066–U+2069), which reorder what follows:
 *   "Wiki \u202Enigol" shows as "Wiki login" — the spoofing of Trojan
 *   Source (CVE-2021-42574).
 * The implicit marks (UAX #9 §2.6: U+200E, U+200F, U+061C) stay allowed: they order the
 * neutral characters of right-to-left names and cannot reverse a run.
 */

const REFUSED_RANGES = '\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
const REFUSED = new RegExp(`[${REFUSED_RANGES}]`, 'u');
const REFUSED_ALL = new RegExp(`[${REFUSED_RANGES}]`, 'gu');

/** The rule as a JSON Schema `pattern` (ECMA-262 with the `u` flag, as ajv compiles it), for `/api` schemas. */
export const NAME_PATTERN = `^[^${REFUSED_RANGES}]*$`;

/** The refusal, worded for an operator or a developer (the CLI, `/api` services). */
export const NAME_CHARACTERS_PROBLEM = 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)';

/** True when the text holds a character no name may hold. */
export function hasRefusedNameCharacters(text: string): boolean {
  return REFUSED.test(text);
}

/** The text without them: for a name taken as it comes rather than refused (an uploaded file's name). */
export function withoutRefusedNameCharacters(text: string): string {
  return text.replace(REFUSED_ALL, '');
}

/**
 * What a terminal would obey or reorder rather than show: every control
 * character but the line feed, and every bidirectional formatting character
 * (the marks too: a listing is no place to order text), and the line and
 * paragraph separators U+2028/U+2029.
 */
const UNSHOWABLE_RANGES = '\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNSHOWABLE = new RegExp(`[${UNSHOWABLE_RANGES}]`, 'gu');
const UNSHOWABLE_OR_LINE_FEED = new RegExp(`[${UNSHOWABLE_RANGES}\\n]`, 'gu');

/**
 * The text with each such character written as `\uXXXX` (the line feed kept
 * unless `lineFeeds` is 'escape'): readable on a terminal, and inside a JSON
 * string the same escape JSON uses, so JSON stays valid and parses to the
 * same string.
 */
export function escapeForTerminal(text: string, lineFeeds: 'keep' | 'escape' = 'keep'): string {
  return text.replace(lineFeeds === 'keep' ? UNSHOWABLE : UNSHOWABLE_OR_LINE_FEED, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}
