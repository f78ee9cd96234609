/**
 * The `login_after` marker (authorization-request.ts, LOGIN_AFTER_PARAMETER):
 * the second a request was sent to /login for a fresh login, and a MAC of that
 * second and the client under a key of this deployment's. A client, or anyone
 * who writes an authorization URL, cannot make a marker of their own: an
 * earlier second would let any recent login skip `prompt=login` and `max_age`
 * (OpenID Connect Core §3.1.2.1). A marker this server wrote is valid for its
 * client only, and for {@link LOGIN_MARKER_VALID_SECONDS}.
 */
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

/** A marker older than this is ignored: it covers a login's way back, second step and password reset included. */
export const LOGIN_MARKER_VALID_SECONDS = 3600;

const MARKER = /^(\d{1,12})\.([A-Za-z0-9_-]{22})$/;

function mac(key: KeyObject, clientId: string, seconds: string): Buffer {
  return createHmac('sha256', key).update(`login_after\u0000${clientId}\u0000${seconds}`).digest().subarray(0, 16);
}

/** The marker of a request of `clientId` sent to /login at `now`. */
export function loginMarker(key: KeyObject, clientId: string, now: Date): string {
  const seconds = String(Math.floor(now.getTime() / 1000));
  return `${seconds}.${mac(key, clientId, seconds).toString('base64url')}`;
}

/** The second `marker` names when this server wrote it for `clientId` and it is still valid at `now`; otherwise undefined. */
export function loginMarkerTime(key: KeyObject, clientId: string, marker: string | undefined, now: Date): number | undefined {
  const parts = marker === undefined ? null : MARKER.exec(marker);
  if (!parts) return undefined;
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== 16 || !timingSafeEqual(given, mac(key, clientId, parts[1]!))) return undefined;
  const seconds = Number(parts[1]);
  return Math.floor(now.getTime() / 1000) - seconds <= LOGIN_MARKER_VALID_SECONDS ? seconds : undefined;
}
