/**
 * Request validation. Path parameters and query strings arrive as text, so
 * they are coerced to their declared types; JSON bodies are not: a number
 * where the schema says string is an error, not silently "123". Every failing
 * field is reported (SPEC §7: one entry per offending field); bodies are size
 * limited and string schemas bounded, which keeps that cheap.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { useDefaults: true, removeAdditional: true, allErrors: true, addUsedSchema: false, strict: false };

const coercing = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
const exact = addFormats(new Ajv({ ...COMMON, coerceTypes: false }));
/** Unknown keys are errors, not silently dropped. */
const strictQuery = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array', removeAdditional: false }));
const strictBody = addFormats(new Ajv({ ...COMMON, coerceTypes: false, removeAdditional: false }));

/**
 * Marks a JSON body schema (with `additionalProperties: false`) whose unknown
 * fields are a 400 naming them instead of being dropped: a PATCH made only of
 * misspelt fields would otherwise succeed and change nothing the caller meant.
 */
export const CLOSED_BODY = { 'x-unknown-fields': 'refused' } as const;

export const compileValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? exact : coercing).compile(schema as object);

/**
 * The `/api` validator: as {@link compileValidator}, but a query string may
 * carry only the parameters its schema declares. Dropping an unknown one
 * would turn `?newstate=false` (a typo) into "no newState", which flips a
 * feature toggle instead of switching it off; so it is a 400 naming the key.
 * A query schema that does not say otherwise is closed; a body schema is
 * closed when it carries {@link CLOSED_BODY}.
 */
export const compileApiValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart, ...rest }) => {
  if (httpPart === 'body' && (schema as Record<string, unknown>)['x-unknown-fields'] === 'refused') return strictBody.compile(schema as object);
  if (httpPart !== 'querystring') return compileValidator({ schema, httpPart, ...rest });
  const object = schema as { additionalProperties?: unknown };
  return strictQuery.compile(object.additionalProperties === undefined ? { ...object, additionalProperties: false } : object);
};
