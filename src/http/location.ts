/**
 * A `Location` header value is a URI reference (RFC 9110 §10.2.2), that is
 * ASCII only (RFC 3986 §2). Node refuses characters above U+00FF in a header
 * (ERR_INVALID_CHAR, a 500) and sends Latin-1 as raw bytes, which no client
 * reads as intended. Every redirect goes through {@link toLocation}: what is
 * already a valid URI reference is left alone, anything else is
 * percent-encoded as UTF-8 (as browsers do with a typed address).
 */

// RFC 3986 unreserved, reserved (gen-delims and sub-delims) and `%` that starts a valid escape.
const ALLOWED = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2}/y;

// The same, for a whole value: what every redirect of this server's own making is (one test instead of one per character).
const ALL_ALLOWED = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

/** `value` percent-encoded where it is not a URI reference: non-ASCII, spaces, controls, a stray `%`. */
export function toLocation(value: string): string {
  if (ALL_ALLOWED.test(value)) return value;
  let out = '';
  let index = 0;
  while (index < value.length) {
    ALLOWED.lastIndex = index;
    const match = ALLOWED.exec(value);
    if (match) {
      out += match[0];
      index += match[0].length;
      continue;
    }
    const codePoint = value.codePointAt(index)!;
    const char = String.fromCodePoint(codePoint);
    // A lone surrogate has no UTF-8 form: Buffer writes U+FFFD for it, and encodeURIComponent would throw.
    for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    index += char.length;
  }
  return out;
}
