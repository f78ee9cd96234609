/**
 * A tiny WebAuthn authenticator in software (WebAuthn §6), for tests of the
 * server's ceremonies without a browser: ES256 keys from node:crypto,
 * `none` attestation, CBOR by tiny-cbor (the
 * encoder @simplewebauthn/server itself decodes with). Each option is a way to make a response
 * the server must refuse (another origin or RP ID, a counter set back).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

const cbor = { encode: (value: CBORType) => Buffer.from(encodeCBOR(value)) };

interface StoredCredential {
  readonly privateKey: KeyObject;
  readonly userHandle: string;
  counter: number;
}

export interface AuthenticatorOptions {
  /** A synced passkey: backup eligible and backed up (BE, BS flags) — `multiDevice`. */
  readonly synced?: boolean;
  /** Whether the member is verified (UV flag): a PIN or biometric. */
  readonly userVerified?: boolean;
  /** Signature counter step per use; 0 for an authenticator without a counter. */
  readonly counterStep?: number;
}

export interface CeremonyOverrides {
  readonly origin?: string;
  readonly rpId?: string;
  readonly challenge?: string;
  /** The counter to report instead of the next one. */
  readonly counter?: number;
  /** Another user handle; null: none (as an authenticator answering `allowCredentials` may). */
  readonly userHandle?: string | null;
  /** Report a synced passkey (BE, BS flags) or not, whatever was registered. */
  readonly synced?: boolean;
  /** The ceremony ran in a frame of another site (WebAuthn L3 §5.8.1: `crossOrigin` true, `topOrigin` that site). */
  readonly topOrigin?: string;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export class SoftwareAuthenticator {
  readonly credentials = new Map<string, StoredCredential>();

  constructor(private readonly origin: string, private readonly options: AuthenticatorOptions = {}) {}

  private flags(attested: boolean, overrides: CeremonyOverrides = {}): number {
    const synced = (overrides.synced ?? this.options.synced) ? 0x08 | 0x10 : 0;
    return 0x01 | (this.options.userVerified === false ? 0 : 0x04) | synced | (attested ? 0x40 : 0);
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string, topOrigin?: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: topOrigin !== undefined, ...(topOrigin ? { topOrigin } : {}) }));
  }

  /** `navigator.credentials.create()`: a new ES256 credential. */
  create(options: PublicKeyCredentialCreationOptionsJSON, overrides: CeremonyOverrides = {}): RegistrationResponseJSON {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor.encode(new Map<number, CBORType>([[1, 2], [3, -7], [-1, 1], [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))], [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))]]));
    const credentialId = randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, credentialId, cose]);
    const authData = this.authData(overrides.rpId ?? options.rp.id!, this.flags(true), 0, attested);
    const attestationObject = cbor.encode(new Map<string, CBORType>([['fmt', 'none'], ['attStmt', new Map<string, CBORType>()], ['authData', new Uint8Array(authData)]]));
    const id = b64(credentialId);
    this.credentials.set(id, { privateKey, userHandle: options.user.id, counter: 0 });
    return {
      id, rawId: id, type: 'public-key', clientExtensionResults: {}, authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64(this.clientData('webauthn.create', overrides.challenge ?? options.challenge, overrides.origin ?? this.origin, overrides.topOrigin)),
        attestationObject: b64(attestationObject), transports: ['internal'],
      },
    };
  }

  /** `navigator.credentials.get()` with a discoverable credential: this one, or the only one held. */
  get(options: PublicKeyCredentialRequestOptionsJSON, credentialId = [...this.credentials.keys()][0]!, overrides: CeremonyOverrides = {}): AuthenticationResponseJSON {
    const credential = this.credentials.get(credentialId);
    if (!credential) throw new Error(`no credential ${credentialId}`);
    credential.counter += this.options.counterStep ?? 1;
    const counter = overrides.counter ?? credential.counter;
    const authData = this.authData(overrides.rpId ?? options.rpId!, this.flags(false, overrides), counter);
    const clientData = this.clientData('webauthn.get', overrides.challenge ?? options.challenge, overrides.origin ?? this.origin, overrides.topOrigin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    return {
      id: credentialId, rawId: credentialId, type: 'public-key', clientExtensionResults: {}, authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64(clientData), authenticatorData: b64(authData), signature: b64(signature),
        ...(overrides.userHandle === null ? {} : { userHandle: overrides.userHandle ?? credential.userHandle }),
      },
    };
  }
}
