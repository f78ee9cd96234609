/**
 * The `/api` validator: as the application's (http/validation.ts), but a
 * query string may carry only the parameters its schema declares. Dropping an
 * unknown one would turn `?newstate=false` (a typo) into "no newState", which
 * flips a feature toggle instead of switching it off; so it is a 400 naming
 * the key. A query schema that does not say otherwise is closed; a body
 * schema is closed when it carries {@link CLOSED_BODY}.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { compileValidator, createAjv } from '../../http/validation.ts';

/** Unknown keys are errors, not silently dropped. */
const strictQuery = createAjv({ coerceTypes: 'array', removeAdditional: false });
const strictBody = createAjv({ coerceTypes: false, removeAdditional: false });

/**
 * Marks a JSON body schema (with `additionalProperties: false`) whose unknown
 * fields are a 400 naming them instead of being dropped: a PATCH made only of
 * misspelt fields would otherwise succeed and change nothing the caller meant.
 */
export const CLOSED_BODY = { 'x-unknown-fields': 'refused' } as const;

/** Whether a body schema carries {@link CLOSED_BODY}. */
export function isClosedBody(schema: unknown): boolean {
  return (schema as Record<string, unknown>)['x-unknown-fields'] === CLOSED_BODY['x-unknown-fields'];
}

export const compileApiValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart, ...rest }) => {
  if (httpPart === 'body' && isClosedBody(schema)) return strictBody.compile(schema as object);
  if (httpPart !== 'querystring') return compileValidator({ schema, httpPart, ...rest });
  const object = schema as { additionalProperties?: unknown };
  return strictQuery.compile(object.additionalProperties === undefined ? { ...object, additionalProperties: false } : object);
};
