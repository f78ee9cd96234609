/** The client application's side of the flow: PKCE, the authorization URL, the token endpoint. */
import { createHash, randomBytes } from 'node:crypto';

export interface Pkce { verifier: string; challenge: string }

export function makePkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(baseUrl: string, params: { clientId: string; redirectUri: string; scope: string; state: string; pkce: Pkce; prompt?: string }): string {
  const query = new URLSearchParams({
    response_type: 'code', client_id: params.clientId, redirect_uri: params.redirectUri, scope: params.scope,
    state: params.state, code_challenge: params.pkce.challenge, code_challenge_method: 'S256',
    ...(params.prompt ? { prompt: params.prompt } : {}),
  });
  return `${baseUrl}/oauth/authorize?${query.toString()}`;
}

export interface TokenAnswer { status: number; body: Record<string, unknown> }

export async function postToken(baseUrl: string, form: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

export function exchangeCode(baseUrl: string, params: { code: string; clientId: string; secret: string; redirectUri: string; pkce: Pkce }): Promise<TokenAnswer> {
  return postToken(baseUrl, {
    grant_type: 'authorization_code', code: params.code, redirect_uri: params.redirectUri,
    client_id: params.clientId, client_secret: params.secret, code_verifier: params.pkce.verifier,
  });
}

export function refresh(baseUrl: string, params: { refreshToken: string; clientId: string; secret: string }): Promise<TokenAnswer> {
  return postToken(baseUrl, { grant_type: 'refresh_token', refresh_token: params.refreshToken, client_id: params.clientId, client_secret: params.secret });
}
