/** Lifetimes from the seed's "Tokens and codes" table. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const ID_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const AUTHORIZATION_CODE_SECONDS = 10 * 60;
