/**
 * Adding a passkey (WebAuthn §7.1, with @simplewebauthn/server): options for
 * a discoverable credential (resident key required, so that the sign-in needs
 * no email first), user verification preferred, no attestation (this server
 * trusts no particular make of authenticator); then the response verified
 * against the challenge of this session, PUBLIC_URL's origin and RP ID, and
 * stored with the mail that tells the member (OWASP Authentication Cheat
 * Sheet: notify of changes to the ways into an account).
 */
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { holdLiveSession } from '../sessions.ts';
import { enqueueMail } from '../../mail/mail-outbox.repository.ts';
import type { MailLocale } from '../../mail/mail.tables.ts';
import { logSecurityEvent, type EventLog } from '../../ops/security-events.ts';
import { CHALLENGE_SECONDS, consumeChallenge, issueChallenge } from './challenges.ts';
import { madeInCrossOriginFrame } from './client-data.ts';
import { PASSKEY_ADDED_MAIL_KIND } from './passkey-added.mail.ts';
import { insertPasskey, listPasskeys, storedPasskeyName, userHandleOf } from './passkeys.repository.ts';
import type { RelyingParty } from './relying-party.ts';
import { loadWebAuthnServer } from './webauthn-library.ts';

/**
 * COSE algorithms a passkey may use (WebAuthn §5.8.5): Ed25519, ES256, RS256.
 * The library would add ML-DSA-44 where the runtime has it (Node 24); a key
 * registered so would stop verifying on a Node without it (package.json
 * allows 22), so the list is fixed here.
 */
export const PASSKEY_ALGORITHMS: readonly number[] = [-8, -7, -257];

/**
 * WebAuthn §5.8.4 AuthenticatorTransport, and `cable` (hybrid's name before
 * Level 3, still reported by older browsers): the only `transports` stored.
 * They come unsigned and are handed back in later options; anything else (a
 * NUL byte, which PostgreSQL cannot store) is refused.
 */
const AUTHENTICATOR_TRANSPORTS: ReadonlySet<string> = new Set(['usb', 'nfc', 'ble', 'smart-card', 'hybrid', 'internal', 'cable']);

/** Why a passkey was not added (nothing was stored): the response refused, the credential registered already, or the session ended meanwhile. */
export class PasskeyNotAdded extends Error {
  constructor(readonly reason: 'invalid-response' | 'already-registered' | 'session-ended', detail?: string) {
    super(detail ?? reason);
    this.name = 'PasskeyNotAdded';
  }
}

export interface Registrant {
  readonly userId: number;
  readonly email: string;
  readonly displayName: string;
  /** The session's public id: the challenge is bound to it. */
  readonly sid: string;
}

/** `navigator.credentials.create()` options for the member, with a fresh challenge. */
export async function passkeyRegistrationOptions(db: DB, clock: Clock, rp: RelyingParty, member: Registrant): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const [existing, handle] = await Promise.all([listPasskeys(db, member.userId), userHandleOf(db, member.userId)]);
  const challenge = await issueChallenge(db, clock, { purpose: 'registration', boundTo: member.sid, userId: member.userId });
  const { generateRegistrationOptions } = await loadWebAuthnServer();
  return generateRegistrationOptions({
    rpName: rp.name, rpID: rp.id,
    userName: member.email, userDisplayName: member.displayName, userID: new Uint8Array(Buffer.from(handle, 'base64url')),
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: CHALLENGE_SECONDS * 1000,
    attestationType: 'none',
    supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
    // WebAuthn §5.4.3: an authenticator that holds one of these already says so instead of making a second.
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
  });
}

export interface NewPasskeyInput extends Registrant {
  readonly response: RegistrationResponseJSON;
  /** The member's name for it; the default (their browser and system) when empty. */
  readonly name: string;
  readonly mailLocale?: MailLocale | undefined;
  readonly log: EventLog;
  readonly ip: string;
}

/** Verifies the authenticator's response and stores the passkey; throws {@link PasskeyNotAdded}. */
export async function addPasskey(db: DB, clock: Clock, rp: RelyingParty, input: NewPasskeyInput): Promise<{ id: number; name: string }> {
  // Before the verification, which spends the challenge: a refused response leaves it for a retry.
  if (!(input.response.response.transports ?? []).every((t) => AUTHENTICATOR_TRANSPORTS.has(t))) throw new PasskeyNotAdded('invalid-response', 'unknown transport');
  if (madeInCrossOriginFrame(input.response.response.clientDataJSON)) throw new PasskeyNotAdded('invalid-response', 'made in a cross-origin frame');
  const binding = { purpose: 'registration', boundTo: input.sid, userId: input.userId } as const;
  const { verifyRegistrationResponse } = await loadWebAuthnServer();
  const verification = await verifyRegistrationResponse({
    response: input.response,
    expectedChallenge: (challenge) => consumeChallenge(db, clock, challenge, binding),
    expectedOrigin: rp.origin, expectedRPID: rp.id,
    // Preferred, not required: a security key without a PIN is still a phishing-resistant key (no `user` in amr).
    requireUserVerification: false,
    supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
  }).catch((error: unknown) => {
    throw new PasskeyNotAdded('invalid-response', error instanceof Error ? error.message : String(error));
  });
  if (!verification.verified) throw new PasskeyNotAdded('invalid-response', 'not verified');
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
  const name = storedPasskeyName(input.name);
  const now = clock();
  const added = await inTransaction(db, async (trx) => {
    // Added only while the session that asked for it lives: one ended meanwhile ("end sessions", a reset) adds nothing.
    if (!(await holdLiveSession(trx, input.sid, input.userId, now))) return 'session-ended' as const;
    const id = await insertPasskey(trx, {
      userId: input.userId, credentialId: credential.id, publicKey: credential.publicKey, signCount: credential.counter,
      transports: credential.transports ?? [], deviceType: credentialDeviceType, backedUp: credentialBackedUp, name,
    }, now);
    if (id === undefined) return undefined;
    const mail = input.mailLocale && { kind: PASSKEY_ADDED_MAIL_KIND, recipient: input.email, locale: input.mailLocale, params: { addedAt: now.toISOString() } };
    return { id, mailId: mail && await enqueueMail(trx, mail, now) };
  });
  if (added === 'session-ended') throw new PasskeyNotAdded('session-ended');
  if (!added) throw new PasskeyNotAdded('already-registered');
  logSecurityEvent(input.log, { event: 'account.passkey.registered', userId: input.userId, passkeyId: added.id, deviceType: credentialDeviceType, backedUp: credentialBackedUp });
  if (added.mailId !== undefined) logSecurityEvent(input.log, { event: 'mail.queued', mailId: added.mailId, kind: PASSKEY_ADDED_MAIL_KIND, ip: input.ip });
  return { id: added.id, name };
}
