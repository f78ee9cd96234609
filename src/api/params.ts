/**
 * Path parameters and wire formats shared by the `/api` areas (SPEC-API
 * "General rules"). The seed's patterns are Symfony route requirements, which
 * match the whole segment, hence the anchors. Up to {@link MAX_PATH_PARAM_LENGTH}
 * characters: SPEC-API answers a pattern-valid id of nothing with 404 (row-id.ts).
 */
import { Type } from '@sinclair/typebox';
import { DIGITS_PATTERN, MAX_PATH_PARAM_LENGTH, NO_NUL_PATTERN, POSITIVE_ID_PATTERN } from './row-id.ts';

export { NO_NUL_PATTERN };

/** The seed's `[1-9][0-9]*`; also used where the seed gives no pattern for an id. */
export function IdParam(description: string) {
  return Type.String({ pattern: POSITIVE_ID_PATTERN, maxLength: MAX_PATH_PARAM_LENGTH, description: `${description} (pattern [1-9][0-9]*)` });
}

/** The seed's `\d+`. */
export function DigitsParam(description: string) {
  return Type.String({ pattern: DIGITS_PATTERN, maxLength: MAX_PATH_PARAM_LENGTH, description: `${description} (pattern \\d+)` });
}

/** RFC 3339 date-time with offset, as every response carries it. */
export function toRfc3339(date: Date): string {
  return date.toISOString();
}

export function toRfc3339OrNull(date: Date | null): string | null {
  return date === null ? null : toRfc3339(date);
}

export const DateTimeString = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} (RFC 3339)` });

/** The body of a 200 for which the seed gives none: an empty JSON object, so clients can always parse JSON. */
export const EmptyObject = Type.Object({}, { additionalProperties: false, description: 'empty JSON object' });
