/**
 * Issuing authorization codes at the end of the authorization endpoint (SPEC
 * §5.2 steps 6–7): 256 random bits, stored only as their digest, bound to
 * everything the token endpoint checks when the code is redeemed.
 */
import { randomBytes } from 'node:crypto';
import { AUTHORIZATION_CODE_SECONDS } from '../lifetimes.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { digestCode } from './authorization-code.ts';
import { insertCode, insertCodeIfConsented, insertSessionCodeIfConsented, type NewCode, type SessionCode } from './codes.repository.ts';

/** What a code is bound to: client, user, redirect URI, scopes, PKCE challenge, nonce and auth_time. */
export type CodeBinding = Omit<NewCode, 'digest' | 'expiresAt'>;

/** A fresh single-use code. */
export async function issueAuthorizationCode(ctx: OAuthContext, binding: CodeBinding): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await insertCode(ctx.db, newCode(ctx, binding, code));
  return code;
}

/**
 * A fresh code when the user's remembered consent covers the requested scopes
 * (SPEC §5.2 step 6) and the client is still at `clientVersion`, decided and
 * stored in one statement; undefined when not, and then nothing was stored.
 */
export async function issueAuthorizationCodeIfConsented(ctx: OAuthContext, binding: CodeBinding, clientVersion: number): Promise<string | undefined> {
  const code = randomBytes(32).toString('base64url');
  return (await insertCodeIfConsented(ctx.db, newCode(ctx, binding, code), clientVersion)) ? code : undefined;
}

/**
 * The same in the same statement as the session look-up (codes.repository.ts
 * `insertSessionCodeIfConsented`): for a request that asks nothing of the
 * session but that it is live (no `prompt=login`, `max_age` or `acr`).
 */
export async function issueAuthorizationCodeInSession(
  ctx: OAuthContext, binding: Omit<SessionCode, 'digest' | 'expiresAt'>, sessionDigest: Buffer, clientVersion: number,
): Promise<string | undefined> {
  const code = randomBytes(32).toString('base64url');
  const now = ctx.clock();
  const stored = await insertSessionCodeIfConsented(ctx.db, {
    ...binding, digest: digestCode(code), expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_SECONDS * 1000),
  }, sessionDigest, clientVersion, now);
  return stored ? code : undefined;
}

function newCode(ctx: OAuthContext, binding: CodeBinding, code: string): NewCode {
  return { ...binding, digest: digestCode(code), expiresAt: new Date(ctx.clock().getTime() + AUTHORIZATION_CODE_SECONDS * 1000) };
}
