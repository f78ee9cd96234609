/**
 * RFC 6238 time-based one-time passwords with the parameters every
 * authenticator app understands: HMAC-SHA-1, six digits, 30-second steps
 * (RFC 6238 §4, Google Authenticator's Key Uri Format). A code is accepted one
 * step either side of now (RFC 6238 §5.2, clock drift) and only for a step
 * later than the last one accepted: a code is never accepted twice.
 */
import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;
const DIGITS = 6;
const ALGORITHM = 'SHA1';

/** A fresh 160-bit secret (RFC 4226 §4: at least 128, 160 recommended), in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/**
 * The `otpauth://totp/…` URI an authenticator app reads from the QR code; the issuer is the server's host name
 * (without a port: the Key Uri Format allows no colon in the issuer, which apps split the label at).
 */
export function otpauthUri(secret: string, publicUrl: string, account: string): string {
  const issuer = new URL(publicUrl).hostname;
  return new TOTP({ issuer, label: account, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD }).toString();
}

/** RFC 6238 §4.2: the number of whole periods since the Unix epoch. */
export function timeStepAt(now: Date): number {
  return TOTP.counter({ period: PERIOD, timestamp: now.getTime() });
}

/** Whether the text looks like a one-time code (spaces allowed, as apps show "123 456"). */
export function isTotpShaped(text: string): boolean {
  return /^\d{6}$/.test(text.replace(/\s/g, ''));
}

/**
 * The time step of `code` when it is valid at `now` (±1 step) and later than
 * `lastUsedStep`; undefined otherwise.
 */
export function acceptedTimeStep(secret: string, code: string, now: Date, lastUsedStep: number | null): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = TOTP.validate({ token, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD, timestamp: now.getTime(), window: 1 });
  if (delta === null) return undefined;
  const step = timeStepAt(now) + delta;
  return lastUsedStep !== null && step <= lastUsedStep ? undefined : step;
}
