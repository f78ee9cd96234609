/**
 * Request validation. Path parameters and query strings arrive as text, so
 * they are coerced to their declared types; JSON bodies are not: a number
 * where the schema says string is an error, not silently "123". Every failing
 * field is reported (SPEC §7: one entry per offending field); bodies are size
 * limited and string schemas bounded, which keeps that cheap.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const COMMON: Options = { useDefaults: true, removeAdditional: true, allErrors: true, addUsedSchema: false, strict: false };

/** A validator engine with this project's common options (and string formats), `overrides` applied. */
export function createAjv(overrides: Options): Ajv {
  return addFormats(new Ajv({ ...COMMON, ...overrides }));
}

/**
 * `ajv.compile`, once per distinct schema. Ajv keeps a compiled schema by
 * object identity, but routes declare equal schemas as separate objects (an
 * id parameter, a page query, a problem body): compiled by content instead,
 * the start compiles about half as many. A compiled function holds no state
 * between calls but `errors`, which Fastify reads right after the call.
 */
export function compilerOf(ajv: Ajv): (schema: object) => ValidateFunction {
  const compiled = new Map<string, ValidateFunction>();
  return (schema) => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(schema);
      compiled.set(key, validate);
    }
    return validate;
  };
}

const coercing = compilerOf(createAjv({ coerceTypes: 'array' }));
const exact = compilerOf(createAjv({ coerceTypes: false }));

export const compileValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? exact : coercing)(schema as object);
