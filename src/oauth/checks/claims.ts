/**
 * The `claims` request parameter (OpenID Connect Core §5.5): the members asked
 * of the ID token, or a string saying why the parameter is malformed. Read by
 * the checks of the members this server acts on: `acr` (acr.ts) and `sub`
 * (claimed-subject.ts); the others are ignored.
 */
export function idTokenClaimsOf(text: string): Record<string, unknown> | undefined | string {
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch {
    return 'The claims parameter must be a JSON object.';
  }
  if (!isObject(claims)) return 'The claims parameter must be a JSON object.';
  const idToken = claims.id_token;
  if (idToken === undefined || idToken === null) return undefined;
  if (!isObject(idToken)) return 'The id_token member of the claims parameter must be a JSON object.';
  return idToken;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
