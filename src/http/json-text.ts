/**
 * What `JSON.parse` lets pass in a JSON text that a strict reading refuses
 * (RFC 8259 §4 and §8.2, I-JSON, RFC 7493 §2.1 and §2.3):
 *
 * - a name given twice in one object: `JSON.parse` keeps the last value, so a
 *   proxy or firewall that reads the first one sees another request than the
 *   server applies;
 * - an escape of half a surrogate pair (`"\ud800"`): `JSON.parse` makes it a
 *   lone surrogate, which reaches the database as U+FFFD, unannounced; raw
 *   bytes of one are not UTF-8 and are refused before parsing.
 *
 * Read on a text `JSON.parse` has accepted: only strings and the structure
 * are looked at. No recursion: a deeply nested text costs a stack entry per
 * level on the heap, not on the call stack.
 */

export interface JsonTextProblem {
  readonly kind: 'repeated-name' | 'unpaired-surrogate';
  /** RFC 6901 pointer to the member or value (`/contactTypes/0`; `''` is the whole text). */
  readonly pointer: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** With the `u` flag a pair is one code point: only a half without its other half is in the category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;
const NONE: ReadonlySet<string> = new Set();

/**
 * The first thing a strict reading refuses in `text`, a JSON text `JSON.parse` accepted; undefined when
 * there is none. `halfPairsAllowedAt`: pointers of values where half a surrogate pair is taken.
 */
export function jsonTextProblem(text: string, halfPairsAllowedAt: ReadonlySet<string> = NONE): JsonTextProblem | undefined {
  // Per open object or array: the names seen (null: an array), and the current member's name or element's index.
  const names: Array<Set<string> | null> = [];
  const at: Array<string | number> = [];
  // Whether the next string of the innermost object is a member's name.
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      const raw = text.slice(i, end + 1);
      const escaped = raw.includes('\\');
      const value = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const seen = names.at(-1);
      if (nameNext && seen) {
        at[at.length - 1] = value;
        if (seen.has(value)) return { kind: 'repeated-name', pointer: pointerOf(at) };
        seen.add(value);
        nameNext = false;
      }
      if (escaped && LONE_SURROGATE.test(value)) {
        const pointer = pointerOf(at);
        if (!halfPairsAllowedAt.has(pointer)) return { kind: 'unpaired-surrogate', pointer };
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      names.push(new Set());
      at.push('');
      nameNext = true;
    } else if (c === 0x5b /* [ */) {
      names.push(null);
      at.push(0);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      names.pop();
      at.pop();
      nameNext = false;
    } else if (c === 0x2c /* , */) {
      const index = at.at(-1);
      if (typeof index === 'number') at[at.length - 1] = index + 1;
      else nameNext = true;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `start`: the next one not escaped by a backslash. */
function closingQuote(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
}

function pointerOf(at: ReadonlyArray<string | number>): string {
  return at.map((step) => `/${String(step).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
