/**
 * WebAuthn Level 3 §7.1 and §7.2 (verifying `crossOrigin` and `topOrigin`):
 * our ceremonies run on our own pages, which no other site may frame
 * (`frame-ancestors 'self'`), so a response whose client data says it was
 * made in a frame of another origin is refused, at registration and at
 * sign-in alike. @simplewebauthn/server checks the origin, not these.
 */

/** Whether the base64url client data of a response says it was made in a cross-origin frame. */
export function madeInCrossOriginFrame(clientDataJSON: unknown): boolean {
  if (typeof clientDataJSON !== 'string') return false; // not client data at all: the library refuses it
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    return typeof data === 'object' && data !== null && (data as { crossOrigin?: unknown }).crossOrigin === true;
  } catch {
    return false; // not JSON: the library refuses it
  }
}
