/**
 * The one id rule of `/api`: a path id arrives as digits (the seed's
 * `[1-9][0-9]*` or `\d+`, checked by the route's schema) and the route turns
 * it into a row id with {@link lookupId} before calling its service, which
 * takes numbers only. A string that passes the pattern may still exceed
 * PostgreSQL's `integer` (`2147483648`); it cannot name a row, so it becomes
 * {@link NO_ROW_ID}, the look-up finds nothing and the answer is 404 —
 * SPEC-API answers a pattern-valid id of nothing with 404, never a 500.
 * Where the 404 names the id, the route passes {@link pathId}, which keeps
 * the digits as sent for the message.
 */
const MAX_INTEGER_ID = 2_147_483_647;

/** Identity columns start at 1: no row has id 0. */
export const NO_ROW_ID = 0;

/** The id to look up: {@link NO_ROW_ID} when the digits cannot name a row, so the look-up finds nothing (404). */
export function lookupId(digits: string | number): number {
  const text = String(digits);
  if (!/^\d{1,10}$/.test(text)) return NO_ROW_ID;
  const id = Number(text);
  return id >= 1 && id <= MAX_INTEGER_ID ? id : NO_ROW_ID;
}

/** A path id where an answer names it: the row id to look up ({@link lookupId}) and the id as sent. */
export interface PathId {
  readonly row: number;
  /** The digits of the path, so that a 404 names `99999999999999999999999`, not the {@link NO_ROW_ID} it became. */
  readonly sent: string;
}

export function pathId(digits: string): PathId {
  return { row: lookupId(digits), sent: digits };
}

export const POSITIVE_ID_PATTERN = '^[1-9][0-9]*$';

/**
 * The longest path parameter an operation takes (its schema's `maxLength`:
 * longer is a 400 naming the parameter, in SPEC-API's order of checks, after
 * 401 and 403). Only a guard against huge inputs: below it, an id that matches
 * its pattern but names nothing is 404, whatever its length.
 */
export const MAX_PATH_PARAM_LENGTH = 200;

/**
 * The longest the router takes at all (longer: 400 "A path parameter is too
 * long" before routing, so before the login and CSRF checks): far above
 * {@link MAX_PATH_PARAM_LENGTH}, so that an operation's own checks come first
 * for any parameter a client could mean.
 */
export const ROUTER_MAX_PARAM_LENGTH = 2048;
export const DIGITS_PATTERN = '^\\d+$';

/** PostgreSQL text cannot hold U+0000: such input is a 400, not a database error. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
