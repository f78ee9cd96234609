/**
 * The rules of a client's settings (SPEC §5.1; RP-Initiated Logout 1.0 §3.1,
 * Back-Channel Logout 1.0 §2.2), shared by creating and changing a client:
 * each bad field is reported by name, every good one normalised for storage.
 */
import { findExistingRegionIds } from '../../accounts/regions.repository.ts';
import type { Executor } from '../../db/executor.ts';
import type { FieldError } from '../../invalid-input.ts';
import { hasRefusedNameCharacters, NAME_CHARACTERS_PROBLEM } from '../../text/control-characters.ts';
import { backchannelLogoutUriProblem } from '../checks/logout-uri.ts';
import { redirectUriProblem, webOrigin } from '../checks/redirect-uri.ts';
import { DEFAULT_SIGNING_ALG, isSigningAlg, SIGNING_ALGS } from '../jose/algorithms.ts';
import { GRANT_TYPES, isGrantType, isScope, SCOPES, sortScopes } from '../scopes.ts';
import { validateKeySettings } from './client-key-settings.ts';
import type { ClientValues } from './clients.repository.ts';

export const MAX_REDIRECT_URIS = 20;

export interface ClientSettings {
  name: string;
  /** true: a server application holding a secret; false: browser/mobile app using PKCE. */
  confidential: boolean;
  /** Exact strings; at least one. */
  redirectUris: readonly string[];
  /** `openid` is always added. */
  scopes: readonly string[];
  /** `authorization_code` is always added; `refresh_token` optional. */
  grantTypes: readonly string[];
  /** Region ids; empty = every user. */
  requiredRegions: readonly number[];
  /** Where RP-Initiated Logout may send the member afterwards (exact strings); absent = none. */
  postLogoutRedirectUris?: readonly string[];
  /** Where Back-Channel Logout delivers logout tokens; absent, null or '' = none. */
  backchannelLogoutUri?: string | null;
  /** Whether logout tokens must carry `sid`; stored false without a back-channel logout URI. */
  backchannelLogoutSessionRequired?: boolean;
  /** RFC 9126 §6: authorization requests only as pushed ones (absent = false). */
  requirePushedAuthorizationRequests?: boolean;
  /** RS256 (absent), ES256 or EdDSA (OpenID Connect Registration 1.0 §2). */
  idTokenSignedResponseAlg?: string;
  /** RFC 7591 §2; absent: a secret method when confidential, else none. `private_key_jwt` needs jwks or jwksUri. */
  tokenEndpointAuthMethod?: string;
  jwks?: unknown;
  jwksUri?: string | null;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`: token requests must carry a DPoP proof (absent = false: a proof is optional). */
  dpopBoundAccessTokens?: boolean;
}

/** The settings as stored (but the secret); problems are added to `errors`. */
export async function validateSettings(db: Executor, input: ClientSettings, errors: FieldError[]): Promise<Omit<ClientValues, 'secretDigest'>> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) errors.push({ field: 'name', message: 'must be 1 to 200 characters' });
  // Shown on the consent page: nothing that reorders or hides what members read (text/control-characters.ts).
  else if (hasRefusedNameCharacters(name)) errors.push({ field: 'name', message: NAME_CHARACTERS_PROBLEM });

  const redirectUris = validateRedirectUris('redirectUris', input.redirectUris, errors);
  if (redirectUris.length === 0) errors.push({ field: 'redirectUris', message: 'must contain at least one redirect URI' });
  const postLogoutRedirectUris = validateRedirectUris('postLogoutRedirectUris', input.postLogoutRedirectUris ?? [], errors);
  const backchannelLogoutUri = input.backchannelLogoutUri?.trim() || null;
  const backchannelProblem = backchannelLogoutUri === null ? undefined : backchannelLogoutUriProblem(backchannelLogoutUri);
  if (backchannelProblem) errors.push({ field: 'backchannelLogoutUri', message: backchannelProblem });

  const idTokenSignedResponseAlg = input.idTokenSignedResponseAlg ?? DEFAULT_SIGNING_ALG;
  if (!isSigningAlg(idTokenSignedResponseAlg)) {
    errors.push({ field: 'idTokenSignedResponseAlg', message: `must be one of ${SIGNING_ALGS.join(', ')}` });
  }

  const keySettings = validateKeySettings(input, errors);

  const badScopes = input.scopes.filter((s) => !isScope(s));
  if (badScopes.length > 0) errors.push({ field: 'scopes', message: `unknown scope ${badScopes.map((s) => JSON.stringify(s)).join(', ')}; allowed: ${SCOPES.join(', ')}` });
  const badGrants = input.grantTypes.filter((g) => !isGrantType(g));
  if (badGrants.length > 0) errors.push({ field: 'grantTypes', message: `unknown grant type ${badGrants.map((g) => JSON.stringify(g)).join(', ')}; allowed: ${GRANT_TYPES.join(', ')}` });

  const regionIds = [...new Set(input.requiredRegions)];
  const existing = await findExistingRegionIds(db, regionIds.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647));
  for (const id of regionIds) if (!existing.has(id)) errors.push({ field: 'requiredRegions', message: `region ${id} does not exist` });

  return {
    name,
    ...keySettings,
    redirectUris,
    origins: [...new Set(redirectUris.map(webOrigin).filter((o): o is string => o !== undefined))],
    scopes: sortScopes(['openid', ...input.scopes.filter(isScope)]),
    grantTypes: GRANT_TYPES.filter((g) => g === 'authorization_code' || input.grantTypes.includes(g)),
    postLogoutRedirectUris,
    backchannelLogoutUri,
    // Back-Channel Logout 1.0 §2.2: only meaningful with a URI.
    backchannelLogoutSessionRequired: backchannelLogoutUri !== null && input.backchannelLogoutSessionRequired === true,
    requirePushedAuthorizationRequests: input.requirePushedAuthorizationRequests === true,
    idTokenSignedResponseAlg: isSigningAlg(idTokenSignedResponseAlg) ? idTokenSignedResponseAlg : DEFAULT_SIGNING_ALG,
    dpopBoundAccessTokens: input.dpopBoundAccessTokens === true,
  };
}

/** Redirect URIs (also those after logout): exact strings, trimmed, without duplicates, each one registrable. */
function validateRedirectUris(field: string, input: readonly string[], errors: FieldError[]): string[] {
  const uris = [...new Set(input.map((u) => u.trim()).filter((u) => u !== ''))];
  if (uris.length > MAX_REDIRECT_URIS) errors.push({ field, message: `must contain at most ${MAX_REDIRECT_URIS} redirect URIs` });
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) errors.push({ field, message: `${JSON.stringify(uri.slice(0, 200))} ${problem}` });
  }
  return uris;
}
