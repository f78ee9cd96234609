/**
 * Path ids arrive as digit strings (the seed's `[1-9][0-9]*` or `\d+`). A
 * string that passes the pattern may still exceed PostgreSQL's `integer`;
 * such an id cannot name a row, so callers answer 404 instead of letting the
 * database fail with a 500.
 */
const MAX_INTEGER_ID = 2_147_483_647;

/** The id as a number, or null when it cannot be the id of any row. */
export function toRowId(digits: string): number | null {
  if (!/^\d{1,10}$/.test(digits)) return null;
  const id = Number(digits);
  return id >= 1 && id <= MAX_INTEGER_ID ? id : null;
}

export const POSITIVE_ID_PATTERN = '^[1-9][0-9]*$';

/**
 * The longest path parameter the router accepts (longer: 400, "A path
 * parameter is too long"). Only a guard against huge inputs: below it, an id
 * that matches its pattern but names nothing is 404, whatever its length.
 */
export const MAX_PATH_PARAM_LENGTH = 200;
export const DIGITS_PATTERN = '^\\d+$';

/** PostgreSQL text cannot hold U+0000: such input is a 400, not a database error. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
