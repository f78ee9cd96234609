/**
 * Rules for a client's logout URIs. Post-logout redirect URIs (RP-Initiated
 * Logout 1.0 §3.1) follow the redirect URI rules (redirect-uri.ts) and match
 * exactly. The back-channel logout URI (Back-Channel Logout 1.0 §2.2) is an
 * absolute URL without a fragment that the server itself calls: `https`, or
 * `http` on a loopback host for local development.
 */
import { LOOPBACK_HOSTS, parseRegistrableUrl } from './redirect-uri.ts';

/** Why the URI cannot be a back-channel logout URI, or undefined when it can. */
export function backchannelLogoutUriProblem(uri: string): string | undefined {
  const url = parseRegistrableUrl(uri);
  if (typeof url === 'string') return url;
  if (url.protocol === 'https:' && url.hostname !== '') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must use https (http only for 127.0.0.1, [::1] or localhost)';
}
