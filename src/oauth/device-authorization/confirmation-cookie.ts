/**
 * The browser that confirmed a user code keeps the continuation it was given
 * in a cookie, and only that browser may go on to login and consent
 * (RFC 8628 §5.4, remote phishing). Without it, anyone could type the code of
 * a device of their own, confirm it without logging in, and send the approval
 * link to a member, whose browser would then show the consent page without
 * ever having shown the code and the warning beside it ("is this the code on
 * your device?"), and whose "allow" would hand the sender's device tokens for
 * the member's account.
 *
 * The cookie holds the continuations of the last few codes confirmed in this
 * browser (a member may connect two devices at once), newest first; each
 * lives as long as a device code.
 */
import { timingSafeEqual } from 'node:crypto';
import { hostCookie } from '../../http/host-cookie.ts';

/**
 * The cookie's name: in production `__Host-` (Secure, no Domain, `Path=/`: RFC 6265bis §4.1.3.2), so that a
 * sibling subdomain cannot set one for this host — it could otherwise plant the continuation of a code its
 * owner confirmed, and the link would work in the member's browser after all. Over http (development) the
 * prefix cannot be set; the plain name is read there only.
 */
export function confirmedDevicesCookie(secure: boolean): string {
  return hostCookie(secure, 'fs_device_confirmed');
}

export const MAX_CONFIRMED_DEVICES = 5;
const CONTINUATION = /^[A-Za-z0-9_-]{43}$/;

function continuations(cookie: string | undefined): string[] {
  if (!cookie || cookie.length > 44 * MAX_CONFIRMED_DEVICES) return [];
  return cookie.split('~').filter((entry) => CONTINUATION.test(entry)).slice(0, MAX_CONFIRMED_DEVICES);
}

/** The cookie's value once `continuation` was confirmed in this browser: it first, the others kept up to the limit. */
export function withConfirmedDevice(cookie: string | undefined, continuation: string): string {
  return [continuation, ...continuations(cookie).filter((entry) => entry !== continuation)].slice(0, MAX_CONFIRMED_DEVICES).join('~');
}

/** Whether this browser confirmed the code that `continuation` carries. */
export function isConfirmedHere(cookie: string | undefined, continuation: unknown): boolean {
  if (typeof continuation !== 'string' || !CONTINUATION.test(continuation)) return false;
  const presented = Buffer.from(continuation);
  return continuations(cookie).some((entry) => timingSafeEqual(Buffer.from(entry), presented));
}
