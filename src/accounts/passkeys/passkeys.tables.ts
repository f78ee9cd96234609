/** Tables of the WebAuthn ceremonies (migration 059); the passkeys themselves are in accounts.tables.ts (migration 058). */

export interface WebauthnChallengesTable {
  /** SHA-256 of the challenge (base64url text as sent). */
  challenge_digest: Buffer;
  purpose: 'registration' | 'authentication';
  /** SHA-256 of what the challenge is bound to: the session's `sid` (registration) or the login form's CSRF token (sign-in). */
  binding_digest: Buffer;
  user_id: number | null;
  expires_at: Date;
}

export interface WebauthnUserHandlesTable {
  user_id: number;
  /** base64url of 32 random bytes. */
  handle: string;
}

export interface PasskeyCeremonyTables {
  webauthn_challenges: WebauthnChallengesTable;
  webauthn_user_handles: WebauthnUserHandlesTable;
}
