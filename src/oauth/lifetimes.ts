/** Lifetimes from the seed's "Tokens and codes" table. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const ID_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const AUTHORIZATION_CODE_SECONDS = 10 * 60;
/** Back-Channel Logout: a logout token is signed at each delivery attempt and lives this long (at most two minutes). */
export const LOGOUT_TOKEN_SECONDS = 120;
/** RFC 9126 §2.2: a pushed request's `request_uri` is short-lived (`expires_in`) and used once. */
export const PUSHED_REQUEST_SECONDS = 60;
/**
 * The continuation of a consumed pushed request across login and consent
 * (docs/oauth.md, "Pushed authorization requests"): long enough for a member
 * to log in, as long as a login marker counts (authorize.ts).
 */
export const PUSHED_CONTINUATION_SECONDS = 3600;
/** RFC 8628 §3.2: how long a device code and its user code live (`expires_in`). */
export const DEVICE_CODE_SECONDS = 600;
/** RFC 8628 §3.2: the polling interval handed out; §3.5: each `slow_down` adds 5 seconds. */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
export const DEVICE_SLOW_DOWN_SECONDS = 5;
/**
 * A poll this much sooner than the interval is still on time: a device's polls may reach instances
 * whose clocks differ a little, and a device that waits its interval must never be told `slow_down`.
 */
export const DEVICE_POLL_TOLERANCE_SECONDS = 1;
