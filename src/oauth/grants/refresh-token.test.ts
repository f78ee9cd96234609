/**
 * The refresh_token grant's rules against an in-memory store that decides as
 * the use_refresh_token statement does: rotation, the grace period, family
 * revocation on reuse (and its security event), client binding, regions,
 * scope narrowing, the race with a concurrent use (RFC 6749 §6, RFC 9700
 * §4.14.2), a public client's grant bound to the key of its first proof
 * (RFC 9449 §5). The statement itself is tested on a real database in
 * test/oauth/refresh.test.ts.
 */
import { describe, expect, test } from 'vitest';
import type { ClientRow } from '../clients/clients.repository.ts';
import { InvalidGrant, InvalidScope, UnauthorizedClient, type OAuthError } from '../errors.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import { encryptRefreshToken } from '../tokens/refresh-token.ts';
import type { IssueInput } from '../tokens/token-response.ts';
import { handle, type RefreshGrantContext, type RefreshTokenRow, type RefreshTokenStore, type RefreshTokenUse, type RefreshTokenUseInput } from './refresh-token.ts';

const START = new Date('2026-05-01T12:00:00Z');
const KEYS: KeyMaterial = { signingKeyPem: '', encryptionKey: new Uint8Array(32).fill(3), generatedIn: undefined };
const GRACE_SECONDS = 10;

interface Row { id: number; grantId: number; scopes: string[]; expiresAt: Date; rotatedAt: Date | null; successorId: number | null }

/** The use_refresh_token statement's decisions over maps; `raceOnce` makes a concurrent use win the next rotation. */
class MemoryRefreshTokens implements RefreshTokenStore {
  readonly rows = new Map<number, Row>();
  readonly revokedGrants = new Set<number>();
  inRegions = true;
  raceOnce = false;
  /** The grant's DPoP key (oauth_grants.dpop_jkt). */
  grantJkt: string | null = null;
  private nextId = 2;

  constructor(now: Date) {
    this.rows.set(1, { id: 1, grantId: 9, scopes: ['email', 'openid'], expiresAt: new Date(now.getTime() + 3600_000), rotatedAt: null, successorId: null });
  }

  async use(u: RefreshTokenUseInput): Promise<RefreshTokenUse | undefined> {
    const cur = await this.find(u.rowId);
    if (!cur) return undefined;
    if (this.raceOnce) {
      // The statement's snapshot predates the concurrent rotation; its own update then matches nothing.
      this.raceOnce = false;
      this.rotate(u.rowId, u.now, u.expiresAt);
      return { ...cur, in_regions: this.inRegions, rotated_to: null, client_current: true };
    }
    const ok = cur.rotated_at === null && cur.client_id === u.clientRowId && cur.revoked_at === null && cur.expires_at > u.now && this.inRegions
      && (u.requestedScopes === null || u.requestedScopes.every((s) => cur.scopes.includes(s)))
      && (cur.dpop_jkt === null || cur.dpop_jkt === u.dpopJkt);
    const rotatedTo = ok ? this.rotate(u.rowId, u.now, u.expiresAt) : null;
    if (ok) this.grantJkt ??= u.refreshDpopJkt;
    return { ...cur, in_regions: this.inRegions, rotated_to: rotatedTo, client_current: true };
  }

  async find(rowId: number): Promise<RefreshTokenRow | undefined> {
    const row = this.rows.get(rowId);
    if (!row) return undefined;
    return {
      id: row.id, grant_id: row.grantId, scopes: row.scopes, expires_at: row.expiresAt, rotated_at: row.rotatedAt, successor_id: row.successorId,
      successor_rotated_at: row.successorId === null ? null : this.rows.get(row.successorId)!.rotatedAt,
      client_id: 1, user_id: 7, auth_time: START, amr: ['pwd'], acr: null, revoked_at: this.revokedGrants.has(row.grantId) ? START : null, sid: 'session-1',
      dpop_jkt: this.grantJkt,
    };
  }

  async revokeGrant(grantId: number): Promise<void> {
    this.revokedGrants.add(grantId);
  }

  private rotate(rowId: number, now: Date, expiresAt: Date): number {
    const row = this.rows.get(rowId)!;
    const id = this.nextId++;
    this.rows.set(id, { id, grantId: row.grantId, scopes: row.scopes, expiresAt, rotatedAt: null, successorId: null });
    row.rotatedAt = now;
    row.successorId = id;
    return id;
  }
}

function setup(client: Partial<ClientRow> = {}) {
  let now = START;
  const store = new MemoryRefreshTokens(now);
  const issued: IssueInput[] = [];
  const ctx: RefreshGrantContext = {
    clock: () => now, material: KEYS, refreshGraceSeconds: GRACE_SECONDS, refreshTokens: store,
    issue: async (input) => {
      issued.push(input);
      return { access_token: 'at', token_type: 'Bearer', expires_in: 3600, scope: input.scopes.join(' ') };
    },
  };
  const row = { id: 1, client_id: 'app', version: 1, grant_types: ['authorization_code', 'refresh_token'], required_regions: [], scopes: ['openid', 'profile', 'email'], ...client } as ClientRow;
  const token = (rowId: number, clientId = 'app') => encryptRefreshToken(KEYS, { rowId, clientId }, Math.floor(now.getTime() / 1000), new Date(now.getTime() + 3600_000));
  const refresh = (refresh_token: string, scope?: string, dpopJkt?: string) => handle(ctx, row, { refresh_token, scope }, { dpopJkt });
  const advance = (seconds: number) => { now = new Date(now.getTime() + seconds * 1000); };
  return { store, issued, token, refresh, advance };
}

async function refusal(promise: Promise<unknown>): Promise<OAuthError> {
  return promise.then(() => { throw new Error('expected a refusal'); }, (error: OAuthError) => error);
}

describe('refresh_token grant', () => {
  test('every use rotates: the response carries the successor; the grant\'s user, auth_time and scopes stay, no nonce', async () => {
    const { issued, token, refresh } = setup();
    await refresh(token(1));
    expect(issued).toEqual([expect.objectContaining({ userId: 7, grantId: 9, authTime: START, nonce: null, scopes: ['openid', 'email'], refresh: expect.objectContaining({ rowId: 2 }) })]);
  });

  test('a retry within the grace period gets the same successor and revokes nothing', async () => {
    const { store, issued, token, refresh, advance } = setup();
    const first = token(1);
    await refresh(first);
    advance(GRACE_SECONDS);
    await refresh(first);
    expect(issued.map((i) => i.refresh!.rowId)).toEqual([2, 2]);
    expect(store.revokedGrants.size).toBe(0);
  });

  test.each([
    ['after the grace period', (s: ReturnType<typeof setup>) => s.advance(GRACE_SECONDS + 1)],
    ['once the successor was used', async (s: ReturnType<typeof setup>) => { await s.refresh(s.token(2)); }],
  ])('reuse %s revokes the family and is a security event without the token', async (_name, between) => {
    const s = setup();
    const first = s.token(1);
    await s.refresh(first);
    await between(s);
    const error = await refusal(s.refresh(first));
    expect(error.toJSON()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired refresh token' });
    expect(error.detail).toBe('a retired token was used again outside the grace period; its family is revoked');
    expect(s.store.revokedGrants).toEqual(new Set([9]));
    expect(error.securityEvent).toEqual({ event: 'oauth.refresh_token.family_revoked', clientId: 'app', grantId: 9, userId: 7, tokenId: 1 });
    expect(JSON.stringify(error.securityEvent)).not.toContain(first);
  });

  test('after family revocation the successor is refused too', async () => {
    const s = setup();
    const first = s.token(1);
    await s.refresh(first);
    s.advance(GRACE_SECONDS + 1);
    await refusal(s.refresh(first));
    expect((await refusal(s.refresh(s.token(2)))).detail).toMatch(/^the token's grant is revoked/);
  });

  test.each([
    ['a token that does not decrypt', () => 'garbage', 'the token does not decrypt with this server\'s key, or its exp has passed'],
    ['a token issued to another client', (s: ReturnType<typeof setup>) => s.token(1, 'other'), 'the token was issued to another client'],
    ['a token naming no row', (s: ReturnType<typeof setup>) => s.token(77), 'the token names no stored row (purged after expiry)'],
  ])('%s: the one public message, the cause in the detail, nothing revoked', async (_name, make, detail) => {
    const s = setup();
    const error = await refusal(s.refresh(make(s)));
    expect(error).toBeInstanceOf(InvalidGrant);
    expect(error.description).toBe('Invalid or expired refresh token');
    expect(error.detail).toBe(detail);
    expect(s.store.revokedGrants.size).toBe(0);
  });

  test('a client without the refresh_token grant: unauthorized_client', async () => {
    const s = setup({ grant_types: ['authorization_code'] });
    expect(await refusal(s.refresh(s.token(1)))).toBeInstanceOf(UnauthorizedClient);
  });

  test('a user outside every required region gets no tokens', async () => {
    const s = setup();
    s.store.inRegions = false;
    expect((await refusal(s.refresh(s.token(1)))).description).toBe('User not in required regions');
  });

  test('scope may narrow, never widen', async () => {
    const s = setup();
    await s.refresh(s.token(1), 'openid');
    expect(s.issued[0]!.scopes).toEqual(['openid']);
    expect(await refusal(s.refresh(s.token(2), 'openid profile'))).toBeInstanceOf(InvalidScope);
  });

  test('losing the race with a concurrent use is decided again as a retry: the winner\'s successor', async () => {
    const s = setup();
    s.store.raceOnce = true;
    await s.refresh(s.token(1));
    expect(s.issued.map((i) => i.refresh!.rowId)).toEqual([2]);
    expect(s.store.rows.size).toBe(2);
    expect(s.store.revokedGrants.size).toBe(0);
  });

  test('a public client\'s first refresh with a proof binds the grant to its key (RFC 9449 §5): later refreshes need that key', async () => {
    const s = setup({ confidential: false });
    await s.refresh(s.token(1), undefined, 'k1');
    expect(s.issued.map((i) => i.dpopJkt)).toEqual(['k1']);
    expect((await refusal(s.refresh(s.token(2)))).detail).toBe('the token is DPoP-bound and no proof was sent');
    expect((await refusal(s.refresh(s.token(2), undefined, 'k2'))).detail).toBe('the token is bound to another DPoP key');
    await s.refresh(s.token(2), undefined, 'k1');
    expect(s.issued.map((i) => [i.refresh!.rowId, i.dpopJkt])).toEqual([[2, 'k1'], [3, 'k1']]);
    expect(s.store.revokedGrants.size).toBe(0);
  });

  test('a public client\'s refresh without a proof binds nothing; a later one with a proof binds', async () => {
    const s = setup({ confidential: false });
    await s.refresh(s.token(1));
    expect(s.store.grantJkt).toBeNull();
    await s.refresh(s.token(2), undefined, 'k1');
    expect(s.store.grantJkt).toBe('k1');
  });

  test('a confidential client\'s proof binds the access token, not the grant: the next refresh needs no proof', async () => {
    const s = setup({ confidential: true });
    await s.refresh(s.token(1), undefined, 'k1');
    await s.refresh(s.token(2));
    expect(s.issued.map((i) => i.dpopJkt)).toEqual(['k1', undefined]);
    expect(s.store.grantJkt).toBeNull();
  });
});
