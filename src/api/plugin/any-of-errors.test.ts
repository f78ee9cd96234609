import { describe, expect, it } from 'vitest';
import { createAjv } from '../../http/validation.ts';
import { collapseAnyOfErrors } from './any-of-errors.ts';

const ajv = createAjv({ coerceTypes: false });

function errorsOf(schema: object, value: unknown): Array<[string, string | undefined]> {
  const validate = ajv.compile(schema);
  expect(validate(value)).toBe(false);
  return collapseAnyOfErrors(validate.errors ?? []).map((e) => [e.instancePath, e.message]);
}

const nullableName = { type: 'object', properties: { name: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] } } };

describe('collapseAnyOfErrors', () => {
  it('names the allowed types once when every branch refused the type', () => {
    expect(errorsOf(nullableName, { name: 1 })).toEqual([['/name', 'must be string or null']]);
  });

  it('keeps only the errors of the one branch that accepted the type', () => {
    expect(errorsOf(nullableName, { name: 'abcd' })).toEqual([['/name', 'must NOT have more than 3 characters']]);
  });

  it('keeps the anyOf error alone when several branches accepted the type', () => {
    const schema = { anyOf: [{ type: 'string', minLength: 5 }, { type: 'string', pattern: '^x' }] };
    expect(errorsOf(schema, 'abc')).toEqual([['', 'must match a schema in anyOf']]);
  });

  it('leaves errors outside any anyOf as they are', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' }, name: nullableName.properties.name } };
    expect(errorsOf(schema, { a: 'x', name: 2 })).toEqual([['/a', 'must be integer'], ['/name', 'must be string or null']]);
  });
});
