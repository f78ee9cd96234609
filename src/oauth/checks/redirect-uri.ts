/**
 * Rules for registering a redirect URI (SPEC §5.1, RFC 6749 §3.1.2, RFC 8252
 * §7, RFC 9700 §2.1): absolute, no fragment, no credentials; `https`, or
 * `http` on a loopback host, or a private-use (reverse-domain) scheme for
 * native apps. Matching at the authorization endpoint is exact string
 * equality, but for the port of a public client's loopback IP literal
 * (RFC 8252 §7.3).
 */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Why the URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length === 0) return 'must not be empty';
  const url = parseRegistrableUrl(uri);
  if (typeof url === 'string') return url;
  if (url.protocol === 'https:') return url.hostname === '' ? 'must name a host' : undefined;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'must use https (http only for 127.0.0.1, [::1] or localhost)';
  }
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return undefined;
  return 'must use https, http on a loopback host, or a reverse-domain scheme of a native app (com.example.app:/callback)';
}

/** What every URI a client registers must be: short, without spaces, fragment or credentials, absolute. The URL, or the problem. */
export function parseRegistrableUrl(uri: string): URL | string {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return 'must not contain spaces or control characters';
  if (uri.includes('#')) return 'must not contain a fragment (#)';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  return url;
}

/**
 * SPEC §5.2 step 2, RFC 9700 §4.1.3: the URI is one the client registered,
 * compared as exact strings — except, for a native app (`of.confidential`
 * false: RFC 8252 §8.4, a native app is a public client), the port of a
 * loopback IP literal (RFC 8252 §7.3: it listens on whatever port the system
 * gives it, so any port matches `http://127.0.0.1` and `http://[::1]`; path
 * and query still exactly). A confidential client's loopback URI matches with
 * its port, as the seed's "differs in any character" has it: a web server's
 * port does not move. `localhost` keeps exact matching (RFC 8252 §8.3 advises
 * against it: the name may not resolve to the loopback interface).
 */
export function isRegisteredRedirectUri(registered: readonly string[], uri: unknown, of: { readonly confidential: boolean }): uri is string {
  if (typeof uri !== 'string') return false;
  if (registered.includes(uri)) return true;
  if (of.confidential) return false;
  const requested = loopbackWithoutPort(uri);
  return requested !== undefined && registered.some((r) => loopbackWithoutPort(r) === requested);
}

/** `http://127.0.0.1:PORT/rest` → `http://127.0.0.1/rest` (same for [::1]); anything else undefined. */
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::([1-9][0-9]{0,4}))?([/?].*)?$/;
function loopbackWithoutPort(uri: string): string | undefined {
  const match = LOOPBACK_IP_URI.exec(uri);
  if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) return undefined;
  return `http://${match[1]}${match[3] ?? ''}`;
}

/** The web origin of a redirect URI, or undefined for native-app schemes. */
export function webOrigin(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
