/**
 * The authorization_code grant's rules against an in-memory store: bindings,
 * single use, reuse revocation and its security event, the operator's detail
 * behind the one public message (SPEC §5.3, RFC 6749 §4.1.3, RFC 7636 §4.6).
 * The statement itself is tested on a real database in test/oauth/token.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { StaleClient } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { InvalidGrant, InvalidRequest, type OAuthError } from '../errors.ts';
import { s256 } from '../checks/pkce.ts';
import type { IssueInput, TokenResponse } from '../tokens/token-response.ts';
import { digestCode, handle, type AuthorizationCodeStore, type CodeGrantContext, type Redemption } from './authorization-code.ts';

const NO_LIVE_CODE = 'no live code matches: unknown, expired, issued under a session that has ended, bound to another client, redirect URI, '
  + 'code challenge or DPoP key, or its member is in none of the client\'s required regions, or the client may use none of its scopes any more';

const NOW = new Date('2026-05-01T12:00:00Z');
const VERIFIER = 'v'.repeat(43);
const REDIRECT = 'https://app.example/cb';

interface StoredCode { clientRowId: number; redirectUri: string; challenge: string | null; expiresAt: Date; usedAt: Date | null; grantId: number | null }

/** What the redeem_code statement decides, over a map. */
class MemoryCodes implements AuthorizationCodeStore {
  readonly codes = new Map<string, StoredCode>();
  readonly revoked: number[] = [];
  clientVersion = 1;
  private nextGrant = 100;

  add(code: string, overrides: Partial<StoredCode> = {}): void {
    this.codes.set(digestCode(code).toString('hex'), {
      clientRowId: 1, redirectUri: REDIRECT, challenge: s256(VERIFIER), expiresAt: new Date(NOW.getTime() + 60_000), usedAt: null, grantId: null, ...overrides,
    });
  }

  async redeem(r: Redemption) {
    if (r.clientVersion !== this.clientVersion) return { clientCurrent: false, code: undefined };
    const code = this.codes.get(r.digest.toString('hex'));
    if (!code || code.usedAt !== null || code.expiresAt <= r.now || code.clientRowId !== r.clientRowId
      || code.redirectUri !== r.redirectUri || code.challenge !== r.challenge) return { clientCurrent: true, code: undefined };
    code.usedAt = r.now;
    code.grantId = this.nextGrant++;
    const refresh_id = r.refreshExpiresAt === null ? null : 500;
    return { clientCurrent: true, code: { grant_id: code.grantId, user_id: 7, scopes: ['openid'], auth_time: NOW, amr: ['pwd'], acr: null, nonce: 'n', sid: 'session-1', refresh_id } };
  }

  async findGrantOfUsedCode(digest: Buffer) {
    const code = this.codes.get(digest.toString('hex'));
    return code && code.usedAt !== null ? code.grantId : undefined;
  }

  async revokeGrant(grantId: number) {
    this.revoked.push(grantId);
  }
}

function setup(grantTypes = ['authorization_code', 'refresh_token']) {
  const codes = new MemoryCodes();
  const issued: IssueInput[] = [];
  const ctx: CodeGrantContext = {
    clock: () => NOW, codes,
    issue: async (input) => {
      issued.push(input);
      return { access_token: 'at', token_type: 'Bearer', expires_in: 3600, scope: input.scopes.join(' ') } satisfies TokenResponse;
    },
  };
  const client = { id: 1, client_id: 'app', version: 1, grant_types: grantTypes, confidential: false, redirect_uris: [REDIRECT, 'https://app.example/other'] } as ClientRow;
  const exchange = (code: string | undefined, more: { redirect_uri?: string; code_verifier?: string } = {}) =>
    handle(ctx, client, { code, redirect_uri: REDIRECT, code_verifier: VERIFIER, ...more });
  return { codes, issued, exchange };
}

async function refusal(promise: Promise<unknown>): Promise<OAuthError> {
  return promise.then(() => { throw new Error('expected a refusal'); }, (error: OAuthError) => error);
}

describe('authorization_code grant', () => {
  test('a live code bound to client, redirect URI and verifier issues tokens with the first refresh token', async () => {
    const { codes, issued, exchange } = setup();
    codes.add('c1');
    await exchange('c1');
    expect(issued).toEqual([expect.objectContaining({ clientId: 'app', userId: 7, grantId: 100, nonce: 'n', now: NOW, refresh: { rowId: 500, expiresAt: new Date(NOW.getTime() + 30 * 24 * 3600 * 1000) } })]);
  });

  test('a client without the refresh_token grant gets no refresh token', async () => {
    const { codes, issued, exchange } = setup(['authorization_code']);
    codes.add('c1');
    await exchange('c1');
    expect(issued[0]!.refresh).toBeNull();
  });

  test.each([
    ['no code', undefined, {}, InvalidRequest, 'code is required.'],
    ['no redirect_uri', 'c1', { redirect_uri: undefined }, InvalidRequest, 'redirect_uri is required.'],
  ])('%s: invalid_request', async (_name, code, more, type, description) => {
    const { codes, exchange } = setup();
    codes.add('c1');
    const error = await refusal(exchange(code, more as { redirect_uri?: string }));
    expect(error).toBeInstanceOf(type);
    expect(error.description).toBe(description);
  });

  test.each([
    ['a malformed verifier', 'c1', { code_verifier: 'short' }, 'the code_verifier is malformed (RFC 7636 §4.1)'],
    ['an overlong code', 'c'.repeat(201), {}, 'the code is longer than any code this server issues'],
    ['another redirect URI', 'c1', { redirect_uri: 'https://app.example/other' }, NO_LIVE_CODE],
    ['another verifier', 'c1', { code_verifier: 'w'.repeat(43) }, NO_LIVE_CODE],
    ['an unknown code', 'nope', {}, NO_LIVE_CODE],
    ['a redirect URI the client has not (or no longer) registered', 'c1', { redirect_uri: 'https://app.example/gone' }, 'the redirect_uri is not (or no longer) registered for the client'],
  ])('%s: the seed\'s one message, the cause in the detail, nothing revoked', async (_name, code, more, detail) => {
    const { codes, exchange } = setup();
    codes.add('c1');
    const error = await refusal(exchange(code, more));
    expect(error).toBeInstanceOf(InvalidGrant);
    expect(error.toJSON()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });
    expect(error.detail).toBe(detail);
    expect(error.securityEvent).toBeUndefined();
    expect(codes.revoked).toEqual([]);
  });

  test('an expired code is refused', async () => {
    const { codes, exchange } = setup();
    codes.add('c1', { expiresAt: NOW });
    expect((await refusal(exchange('c1'))).description).toBe('Invalid or expired code');
  });

  test('a second use revokes the grant the first one issued and is a security event without the code', async () => {
    const { codes, exchange } = setup();
    codes.add('c1');
    await exchange('c1');
    const error = await refusal(exchange('c1'));
    expect(error.description).toBe('Invalid or expired code');
    expect(error.detail).toBe('the code was already used; the grant it issued is revoked');
    expect(codes.revoked).toEqual([100]);
    expect(error.securityEvent).toEqual({ event: 'oauth.code.reused', clientId: 'app', grantId: 100 });
    expect(JSON.stringify(error.securityEvent)).not.toContain('c1');
  });

  test('a second use with a malformed verifier revokes too: a reuse is found whatever the verifier', async () => {
    const { codes, exchange } = setup();
    codes.add('c1');
    await exchange('c1');
    const error = await refusal(exchange('c1', { code_verifier: 'short' }));
    expect(error.toJSON()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });
    expect(codes.revoked).toEqual([100]);
    expect(error.securityEvent).toEqual({ event: 'oauth.code.reused', clientId: 'app', grantId: 100 });
  });

  test('a client changed since it was read redeems nothing: StaleClient', async () => {
    const { codes, exchange } = setup();
    codes.add('c1');
    codes.clientVersion = 2;
    await expect(exchange('c1')).rejects.toBeInstanceOf(StaleClient);
    expect(codes.codes.get(digestCode('c1').toString('hex'))!.usedAt).toBeNull();
  });
});
