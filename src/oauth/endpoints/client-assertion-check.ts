/**
 * The client-assertion check of one request at one endpoint: accepted
 * audiences are the issuer, the token endpoint's URL and the endpoint's own
 * URL, at every endpoint that authenticates clients (RFC 7523 §3 item 3;
 * RFC 9126 §2 requires all three at the PAR endpoint; OpenID Connect Core 1.0
 * §9 says `aud` SHOULD be the token endpoint's URL, so clients send it to the
 * other endpoints too).
 */
import type { AssertionCheck } from '../clients/client-auth.ts';
import { verifyClientAssertion } from '../clients/client-assertion.ts';
import type { OAuthContext } from '../oauth-context.ts';

export const CLIENT_ASSERTION_PARAMETERS = ['client_assertion', 'client_assertion_type'] as const;
const TOKEN_PATH = '/oauth/token';

/** A check for one request: a repeat of the same assertion within it (a retry on fresh client data) is no replay. */
export function clientAssertionCheck(ctx: OAuthContext, path: string): AssertionCheck {
  const recorded = new Set<string>();
  const audiences = [...new Set([ctx.issuer, `${ctx.issuer}${TOKEN_PATH}`, `${ctx.issuer}${path}`])];
  return (client, assertion) => verifyClientAssertion(
    { db: ctx.db, jwks: ctx.clientJwks, audiences, now: ctx.clock(), recorded }, client, assertion,
  );
}
