/**
 * The `scope` parameter (RFC 6749 §3.3): space-separated; here it must name
 * `openid` (OpenID Connect Core §3.1.2.1) and only scopes the client holds;
 * `offline_access` is accepted and dropped (scopes.ts `OFFLINE_ACCESS`).
 */
import { InvalidScope } from '../errors.ts';
import { isScope, sortScopes, withoutOfflineAccess, type Scope } from '../scopes.ts';
import { pass, refuse, type Checked } from './check.ts';

/** The requested scopes in canonical order. */
export function checkRequestedScopes(scopeParam: string | undefined, allowed: readonly string[]): Checked<Scope[]> {
  const requested = withoutOfflineAccess((scopeParam ?? '').split(' ').filter((s) => s !== ''));
  if (!requested.includes('openid')) return refuse(new InvalidScope('The scope must include openid.'));
  const unknown = requested.filter((s) => !isScope(s));
  if (unknown.length > 0) return refuse(new InvalidScope(`Unknown scope: ${printable(unknown.join(' ').slice(0, 200))}`));
  const notAllowed = requested.filter((s) => !allowed.includes(s));
  if (notAllowed.length > 0) return refuse(scopeNotAllowed(notAllowed));
  return pass(sortScopes(requested));
}

/** SPEC §5.2 step 3's refusal of scopes the client may not use (at authorization, and at a refresh after the operator took them). */
export function scopeNotAllowed(scopes: readonly string[]): InvalidScope {
  return new InvalidScope(`Scope not allowed for this client: ${scopes.join(' ')}`);
}

/** RFC 6749 §4.1.2.1: error_description is %x20-21 / %x23-5B / %x5D-7E; echoed input is reduced to that. */
function printable(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}
