/**
 * What a browser sends back from a WebAuthn ceremony (WebAuthn §5.1,
 * `PublicKeyCredential.toJSON()`, as @simplewebauthn/browser returns it):
 * its shape and sizes checked before the ceremony's verification reads it.
 */
import { Type } from '@sinclair/typebox';

const Base64Url = (maxLength: number) => Type.String({ maxLength, pattern: '^[A-Za-z0-9_-]*$' });

const Credential = {
  // WebAuthn §5.1: a credential id is at most 1023 bytes.
  id: Type.String({ minLength: 1, maxLength: 1400, pattern: '^[A-Za-z0-9_-]+$' }),
  rawId: Base64Url(1400),
  type: Type.Literal('public-key'),
  clientExtensionResults: Type.Object({}, { additionalProperties: true, maxProperties: 20 }),
  authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
};

export const AuthenticationResponse = Type.Object({
  ...Credential,
  response: Type.Object({
    clientDataJSON: Base64Url(20_000),
    authenticatorData: Base64Url(20_000),
    signature: Base64Url(2_000),
    userHandle: Type.Optional(Base64Url(200)),
  }),
});

export const RegistrationResponse = Type.Object({
  ...Credential,
  response: Type.Object({
    clientDataJSON: Base64Url(20_000),
    attestationObject: Base64Url(100_000),
    authenticatorData: Type.Optional(Base64Url(100_000)),
    transports: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10 })),
    publicKeyAlgorithm: Type.Optional(Type.Integer()),
    publicKey: Type.Optional(Base64Url(20_000)),
  }),
});
