/**
 * @simplewebauthn/server loads with the first passkey request, not at
 * start-up: with its certificate and ASN.1 dependencies it was the largest
 * module the start loaded (about 0.13 s of CPU), and most starts serve no
 * passkey before the next one.
 */
type WebAuthnServer = typeof import('@simplewebauthn/server');

let loading: Promise<WebAuthnServer> | undefined;

export function loadWebAuthnServer(): Promise<WebAuthnServer> {
  loading ??= import('@simplewebauthn/server');
  return loading;
}
