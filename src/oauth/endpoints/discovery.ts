/**
 * `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3,
 * SPEC §5.5), the same document at `/.well-known/oauth-authorization-server`
 * (RFC 8414), and `/.well-known/jwks.json`: bodies computed once, cacheable. The issuer is PUBLIC_URL, byte-identical everywhere.
 */
import { ASSERTION_SIGNING_ALGS } from '../clients/auth-methods.ts';
import type { FastifyInstance } from 'fastify';
import { DPOP_SIGNING_ALGS } from '../dpop/dpop-proof.ts';
import { ACR_VALUES_SUPPORTED } from '../../accounts/authentication-methods.ts';
import { SIGNING_ALGS } from '../jose/algorithms.ts';
import { JWKS_CACHE_SECONDS } from '../keys/key-store.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { DEVICE_AUTHORIZATION_PATH } from './device-authorization.ts';
import { END_SESSION_PATH } from './end-session.ts';
import { PAR_PATH } from './par.ts';
import { GRANT_TYPES, OFFLINE_ACCESS, SCOPES } from '../scopes.ts';

export const CLAIMS_SUPPORTED = [
  'sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'preferred_username', 'name', 'given_name',
  'family_name', 'picture', 'locale', 'email', 'email_verified', 'region_ids', 'region_ambassador', 'sid', 'amr', 'acr',
] as const;

/** `requirePushed`: REQUIRE_PUSHED_AUTHORIZATION_REQUESTS. */
export function discoveryDocument(issuer: string, requirePushed = false): Record<string, unknown> {
  const authMethods = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
  const assertionAlgs = [...ASSERTION_SIGNING_ALGS];
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    end_session_endpoint: `${issuer}${END_SESSION_PATH}`,
    // RFC 9126 §5: where to push requests, and whether every request must be pushed (server-wide).
    pushed_authorization_request_endpoint: `${issuer}${PAR_PATH}`,
    require_pushed_authorization_requests: requirePushed,
    // RFC 8628 §4: where devices start; the member enters the user code at <issuer>/device.
    device_authorization_endpoint: `${issuer}${DEVICE_AUTHORIZATION_PATH}`,
    // OpenID Connect Core §11's offline_access is accepted (scopes.ts): refresh tokens follow the client's grant types.
    scopes_supported: [...SCOPES, OFFLINE_ACCESS],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    subject_types_supported: ['public'],
    // Per client (`id_token_signed_response_alg`), also for its access and logout tokens; the JWKS has a key of each.
    id_token_signing_alg_values_supported: [...SIGNING_ALGS],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    // RFC 7662 §2.1: the caller authenticates; public clients cannot.
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    // RFC 8414 §2: what private_key_jwt assertions may be signed with (asymmetric only).
    token_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    revocation_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    introspection_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    // RFC 9701: signed introspection answers are RS256 for every client (endpoints/introspect.ts).
    introspection_signing_alg_values_supported: ['RS256'],
    // RFC 9449 §5.1: the algorithms a DPoP proof may be signed with (asymmetric only).
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
    code_challenge_methods_supported: ['S256'],
    claims_supported: [...CLAIMS_SUPPORTED],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    // Only the ID token's `acr` member is read (checks/acr.ts); the others are ignored.
    claims_parameter_supported: true,
    // OpenID Connect Discovery 1.0 §3; what acr_values and an essential acr claim may ask for (docs/oauth.md, "Step-up").
    acr_values_supported: [...ACR_VALUES_SUPPORTED],
    request_parameter_supported: false,
    // OpenID Connect request objects by reference; the request_uri of a pushed request (RFC 9126) is a different matter.
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
    // Back-Channel Logout 1.0 §2.1: logout tokens go to each client a session signed into, with `sid`.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    ui_locales_supported: ['de', 'en'],
    // RP-Initiated Logout 1.0 only; no front-channel logout (OpenID Connect Front-Channel Logout 1.0 §3).
    frontchannel_logout_supported: false,
  };
}

/** The metadata never changes while the server runs; the JWKS changes with a key rotation. */
const DISCOVERY_CACHE_CONTROL = 'public, max-age=300';
const JWKS_CACHE_CONTROL = `public, max-age=${JWKS_CACHE_SECONDS}`;

export function discoveryEndpoints(app: FastifyInstance, ctx: OAuthContext): void {
  const discoveryBody = JSON.stringify(discoveryDocument(ctx.issuer, ctx.requirePushedAuthorizationRequests));
  // RFC 8414 §3: the same metadata for OAuth-only clients (oauth4webapi's `algorithm: 'oauth2'`, Auth.js `type: "oauth"`).
  for (const url of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    app.get(url, (_request, reply) => reply
      .header('cache-control', DISCOVERY_CACHE_CONTROL).type('application/json; charset=utf-8').send(discoveryBody));
  }
  app.get('/.well-known/jwks.json', async (_request, reply) => reply
    .header('cache-control', JWKS_CACHE_CONTROL).type('application/json; charset=utf-8').send(await ctx.keys.jwks()));
}
