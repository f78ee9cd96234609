/** Lifetimes from the seed's "Tokens and codes" table. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const ID_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const AUTHORIZATION_CODE_SECONDS = 10 * 60;
/** Back-Channel Logout: a logout token is signed at each delivery attempt and lives this long (at most two minutes). */
export const LOGOUT_TOKEN_SECONDS = 120;
