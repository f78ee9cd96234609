/**
 * The client-assertion check of one request at one endpoint: accepted
 * audiences are the issuer and the endpoint's URL (RFC 7523 §3 item 3; OpenID
 * Connect Core 1.0 §9 names the token endpoint, RFC 7523bis the issuer).
 */
import type { AssertionCheck } from '../clients/client-auth.ts';
import { verifyClientAssertion } from '../clients/client-assertion.ts';
import type { OAuthContext } from '../oauth-context.ts';

export const CLIENT_ASSERTION_PARAMETERS = ['client_assertion', 'client_assertion_type'] as const;

/** A check for one request: a repeat of the same assertion within it (a retry on fresh client data) is no replay. */
export function clientAssertionCheck(ctx: OAuthContext, path: string): AssertionCheck {
  const recorded = new Set<string>();
  return (client, assertion) => verifyClientAssertion(
    { db: ctx.db, jwks: ctx.clientJwks, audiences: [ctx.issuer, `${ctx.issuer}${path}`], now: ctx.clock(), recorded }, client, assertion,
  );
}
