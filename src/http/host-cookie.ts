/**
 * A cookie's name in this deployment. In production (https) it carries the
 * `__Host-` prefix (RFC 6265bis §4.1.3.2): a browser accepts such a cookie
 * only from this host, over https, with `Path=/` and no `Domain`. Without it,
 * a sibling subdomain could set the name for the parent domain (cookie
 * tossing) — its own session, say, signing the member into the attacker's
 * account — or shadow ours with a longer `Path`. Over plain http
 * (development) the prefix cannot be set, and the plain name is used.
 */
export function hostCookie(isProduction: boolean, name: string): string {
  return isProduction ? `__Host-${name}` : name;
}
