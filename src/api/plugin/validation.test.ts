import { describe, expect, it } from 'vitest';
import { CLOSED_BODY, compileApiValidator } from './validation.ts';

type Validate = ((data: unknown) => boolean) & { errors?: { params: Record<string, unknown> }[] | null };

const compile = (httpPart: string, schema: object) =>
  compileApiValidator({ schema, httpPart, method: 'PATCH', url: '/api/x' }) as Validate;

const OPEN = { type: 'object', properties: { flag: { type: 'boolean' } } };

describe('compileApiValidator', () => {
  it('closes a query schema that does not say otherwise: unknown keys are errors, not dropped', () => {
    const validate = compile('querystring', OPEN);
    const query: Record<string, unknown> = { flag: 'true', flg: 'false' };
    expect(validate(query)).toBe(false);
    expect(validate.errors?.map((e) => e.params)).toEqual([{ additionalProperty: 'flg' }]);
    expect(query).toEqual({ flag: true, flg: 'false' });
    expect(validate({ flag: 'false' })).toBe(true);
  });

  it('keeps an explicitly open query schema open', () => {
    expect(compile('querystring', { ...OPEN, additionalProperties: true })({ other: 'x' })).toBe(true);
  });

  it('still drops unknown body fields and does not coerce body types', () => {
    const validate = compile('body', { ...OPEN, additionalProperties: false });
    const body: Record<string, unknown> = { flag: true, extra: 1 };
    expect(validate(body)).toBe(true);
    expect(body).toEqual({ flag: true });
    expect(validate({ flag: 'true' })).toBe(false);
  });

  it('refuses unknown fields of a body schema marked closed, naming them', () => {
    const validate = compile('body', { ...OPEN, additionalProperties: false, ...CLOSED_BODY });
    expect(validate({ flag: true, extra: 1 })).toBe(false);
    expect(validate.errors?.map((e) => e.params)).toEqual([{ additionalProperty: 'extra' }]);
    expect(validate({ flag: true })).toBe(true);
  });
});
