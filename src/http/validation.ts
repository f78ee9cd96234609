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

/** A validator engine with this project's common options (and string formats), `overrides` applied. */
export function createAjv(overrides: Options): Ajv {
  return addFormats(new Ajv({ ...COMMON, ...overrides }));
}

const coercing = createAjv({ coerceTypes: 'array' });
const exact = createAjv({ coerceTypes: false });

export const compileValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? exact : coercing).compile(schema as object);

/** Validators handed to Fastify and not compiled yet (see {@link compiledOnFirstUse}). */
const pending = new Set<() => unknown>();

/**
 * `compile`, deferred to the first request a validator checks: compiling every route's schemas with
 * ajv was the largest part of a start (a third of its CPU on a slow machine), and most routes of an
 * instance are not called in its first seconds. The wrapper is an ajv validator to Fastify: it
 * reads `schemaEnv` (then passes the parent, so that ajv may coerce the root value) and `errors`.
 * A schema that does not compile would fail its route's first request instead of the start; the
 * shipped schemas are compiled by `compilePendingValidators()` in a test (test/http/validators.test.ts).
 */
export function compiledOnFirstUse(compile: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return (route) => {
    let compiled: ReturnType<FastifySchemaCompiler<unknown>> & { schemaEnv?: unknown; errors?: unknown } | undefined;
    const get = () => {
      if (compiled === undefined) {
        compiled = compile(route) as typeof compiled & object;
        pending.delete(get);
      }
      return compiled;
    };
    pending.add(get);
    const validate = (data: unknown, context?: unknown) => {
      const validator = get() as (data: unknown, context?: unknown) => unknown;
      const result = validator(data, context);
      validate.errors = (validator as { errors?: unknown }).errors;
      return result;
    };
    validate.errors = undefined as unknown;
    Object.defineProperty(validate, 'schemaEnv', { get: () => get().schemaEnv });
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

/** Compiles every validator still waiting for its first use; returns how many. Throws a schema's error. */
export function compilePendingValidators(): number {
  const waiting = [...pending];
  for (const compile of waiting) compile();
  return waiting.length;
}
