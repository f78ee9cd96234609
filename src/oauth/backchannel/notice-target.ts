/**
 * Where a logout notice may be sent (server-side request forgery: OWASP SSRF
 * Prevention Cheat Sheet). Checked at every attempt, whatever was accepted at
 * registration: `https`, or `http` on a loopback host outside production (a
 * developer's receiver); in production every address the host resolves to
 * must be public (src/http/public-address.ts, checked after DNS resolution),
 * so a registered URI never makes us reach loopback, the private network or a
 * cloud metadata service.
 */
import { isPublicAddress } from '../../http/public-address.ts';
import { LOOPBACK_HOSTS } from '../checks/redirect-uri.ts';

export interface NoticeTargetPolicy {
  /** Why no request may go to `uri` at all, or undefined when one may (its addresses are checked on connecting). */
  refusal(uri: string): string | undefined;
  isAllowedAddress(address: string): boolean;
}

export function noticeTargetPolicy(isProduction: boolean): NoticeTargetPolicy {
  return {
    refusal(uri) {
      const url = URL.canParse(uri) ? new URL(uri) : undefined;
      if (url === undefined) return 'not an absolute URL';
      if (url.username !== '' || url.password !== '') return 'a URL with credentials';
      if (url.protocol === 'https:') return undefined;
      if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && !isProduction) return undefined;
      return isProduction ? 'not https' : 'neither https nor http on a loopback host';
    },
    isAllowedAddress: isProduction ? isPublicAddress : () => true,
  };
}
