/**
 * Where to send the browser after login: only a path on this site, so the
 * login form cannot be turned into an open redirector.
 */
export function safeReturnTo(candidate: unknown, publicUrl: string): string | undefined {
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > 8192) return undefined;
  let value = candidate;
  if (!value.startsWith('/')) {
    // A Referer: keep it only when it is our own origin.
    try {
      const url = new URL(value);
      if (url.origin !== new URL(publicUrl).origin) return undefined;
      value = url.pathname + url.search;
    } catch {
      return undefined;
    }
  }
  if (value.startsWith('//') || value.startsWith('/\\') || /[\u0000-\u001f\u007f]/.test(value)) return undefined;
  if (value === '/login' || value.startsWith('/login?') || value.startsWith('/logout')) return undefined;
  return value;
}
