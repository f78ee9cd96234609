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
import { onFirstUse } from './compile-on-first-use.ts';

// ajv-formats ships CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// strictNumbers: JSON.parse reads 1e309 as Infinity, which would otherwise pass as an integer or number.
const COMMON: Options = { useDefaults: true, removeAdditional: true, allErrors: true, addUsedSchema: false, strict: false, strictNumbers: true };

/** A validator engine with this project's common options (and string formats), `overrides` applied. */
export function createAjv(overrides: Options): Ajv {
  return addFormats(new Ajv({ ...COMMON, ...overrides }));
}

const coercing = createAjv({ coerceTypes: 'array' });
const exact = createAjv({ coerceTypes: false });

export const compileValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? exact : coercing).compile(schema as object);

/**
 * `compile`, deferred to the first request a validator checks (compile-on-first-use.ts). The
 * wrapper is an ajv validator to Fastify: it reads `schemaEnv` (then passes the parent, so that ajv
 * may coerce the root value) and `errors`.
 */
export function compiledOnFirstUse(compile: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return (route) => {
    type Validator = ((data: unknown, context?: unknown) => unknown) & { schemaEnv?: unknown; errors?: unknown };
    const validator = onFirstUse(() => compile(route) as Validator);
    const validate = (data: unknown, context?: unknown) => {
      const compiled = validator();
      const result = compiled(data, context);
      validate.errors = compiled.errors;
      return result;
    };
    validate.errors = undefined as unknown;
    Object.defineProperty(validate, 'schemaEnv', { get: () => validator().schemaEnv });
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
