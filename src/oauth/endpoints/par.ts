/**
 * `POST /oauth/par` (RFC 9126 §2): the client authenticates as at the token
 * endpoint (same methods, same failure limiter) and pushes the parameters of
 * an authorization request, which are checked as the authorization endpoint
 * checks them (§2.1). Answers 201 with a `request_uri` valid 60 seconds and
 * usable once (§2.2); errors are RFC 6749 §5.2 JSON (§2.3).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  AUTHORIZATION_PARAMETERS, AuthorizationPageError, AuthorizationRedirectError, checkAuthorizationRequest, checkHintedMember, LOGIN_AFTER_PARAMETER,
} from '../authorization-request.ts';
import { authenticateClient } from '../clients/client-auth.ts';
import { findClientRow, type ClientRow } from '../clients/clients.repository.ts';
import { readDpopProof } from '../dpop/dpop-request.ts';
import { InvalidDpopProof, InvalidRequest } from '../errors.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { pushRequest } from '../pushed-authorization/pushed-requests.ts';
import { CLIENT_ASSERTION_PARAMETERS, clientAssertionCheck } from './client-assertion-check.ts';
import { formParameters } from './form.ts';
import { Refusals } from './refusals.ts';

export const PAR_PATH = '/oauth/par';

/** What a pushed request may carry: the authorization parameters, not `request_uri` (§2.1) nor our login marker. */
const PUSHED_PARAMETERS = AUTHORIZATION_PARAMETERS.filter((name) => name !== LOGIN_AFTER_PARAMETER);

export function pushedAuthorizationRequestEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  app.post(PAR_PATH, async (request, reply) => {
    const attempt = limiter.begin(request.ip);
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    try {
      const params = formParameters(request, [...PUSHED_PARAMETERS, 'client_secret', ...CLIENT_ASSERTION_PARAMETERS]);
      const client = await authenticateClient((clientId) => findClientRow(ctx.db, clientId), ctx.material, request.headers.authorization, params, clientAssertionCheck(ctx, PAR_PATH));
      await attempt.authenticated(client);
      const parameters = await checkPushedRequest(ctx, client, request);
      const proof = await readDpopProof(ctx, request, reply, PAR_PATH);
      const pushed = await pushRequest(ctx.db, client, bindToProof(parameters, proof?.jkt), ctx.clock());
      await attempt.succeeded();
      return reply.code(201).send(pushed);
    } catch (error) {
      new Refusals().log(request, error);
      throw await attempt.failed(error);
    }
  });
}

/**
 * RFC 9449 §10.1: a proof sent with the push binds the code to its key, as
 * `dpop_jkt` would; when both are sent they must name the same key.
 */
function bindToProof(parameters: Record<string, string>, jkt: string | undefined): Record<string, string> {
  if (jkt === undefined) return parameters;
  if (parameters.dpop_jkt !== undefined && parameters.dpop_jkt !== jkt) throw new InvalidDpopProof('The DPoP proof\'s key does not match dpop_jkt.');
  return { ...parameters, dpop_jkt: jkt };
}

/** RFC 9126 §2.1: the authorization endpoint's checks (the `id_token_hint` too), as JSON errors; the parameters to store. */
async function checkPushedRequest(ctx: OAuthContext, client: ClientRow, request: FastifyRequest): Promise<Record<string, string>> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (body.request_uri !== undefined) throw new InvalidRequest('request_uri must not be sent to the pushed authorization request endpoint.');
  const raw = Object.fromEntries(PUSHED_PARAMETERS.map((name) => [name, body[name]]));
  try {
    return (await checkHintedMember(checkAuthorizationRequest(client, { ...raw, client_id: client.client_id }), ctx)).parameters;
  } catch (error) {
    if (error instanceof AuthorizationPageError) throw new InvalidRequest(error.message);
    if (error instanceof AuthorizationRedirectError) throw error.error;
    throw error;
  }
}
