/**
 * fast-check arbitraries for hostile input: junk strings, path segments,
 * query strings, header values, and JSON values shaped like an operation's
 * schema (its fields, with values of the right type near and past the limits,
 * of the wrong type, or junk), from the OpenAPI document's JSON Schema.
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
}

/**
 * Strings that broke servers somewhere: NUL, lone surrogates, escapes, traversal, numbers past every range; and
 * C1 controls and bidirectional overrides, which names refuse (docs/security.md "Spoofed names").
 */
export const NASTY = ['', ' ', '\u0000', 'a\u0000b', 'a\u0085b', '\u009b31m', 'Wiki \u202enigol', 'x\u2067y\u2069', '\uD800', '\uDFFF x', '%', '%00', '%zz', '%C0%AF', '..', '../..', '%2e%2e%2f', '\\',
  '-1', '0', '1.5', '+1', '1e400', 'NaN', 'Infinity', '2147483648', '9'.repeat(40), 'true', 'null', '[]', '{}', '__proto__', 'constructor',
  '<script>alert(1)</script>', "' or 1=1 --", '€→😀', 'ü ß', 'x'.repeat(9000), '//evil.example', 'javascript:alert(1)', '\r\nSet-Cookie: x=1'];

export const junkString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** UTF-8 percent-encoding that also takes lone surrogates (as U+FFFD), unlike encodeURIComponent. */
export function encode(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/** A path segment: encoded (most of the time) or raw, for broken escapes. */
export function segment(value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 4, arbitrary: value.map(encode) }, { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%00', '..', '%2F', '%C0%AF', '%F0%9F%98%80') });
}

/** A value for a header: Node sends tab and 0x20–0xFF only, so anything else is mapped into that range. */
export const headerValue: fc.Arbitrary<string> = junkString.map((s) => [...s].map((c) => {
  const code = c.codePointAt(0)!;
  return code === 9 || (code >= 0x20 && code <= 0xff && code !== 0x7f) ? c : String.fromCharCode(0x20 + (code % 0xdf));
}).join('').slice(0, 4000));

/** A query string of `pairs`, each key and value encoded, or one raw oddity. */
export function queryString(pairs: fc.Arbitrary<Array<[string, string]>>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: pairs.map((p) => p.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')) },
    { weight: 1, arbitrary: fc.constantFrom('a&a&a', '=', '&&', '%', 'x=%zz', 'a[b]=1&a[c]=2', '__proto__[x]=1', 'x='.repeat(300)) },
  );
}

const wrongTyped: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null), fc.boolean(), fc.integer(), fc.double(), junkString, fc.constant([]), fc.constant({}),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -0, 2 ** 31), fc.array(fc.constant(null), { maxLength: 3 }),
);

function typeOf(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type[0] : schema.type;
}

/** A value of the schema's type, within and past its limits. */
function rightTyped(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => shapedLike(s, depth)));
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), fc.integer({ min: -3, max: 5 }));
  const edges = [schema.minimum, schema.maximum].filter((x): x is number => x !== undefined).flatMap((x) => [x, x - 1, x + 1, x + 0.5]);
  switch (typeOf(schema)) {
    case 'string': return fc.oneof(junkString, fc.string({ minLength: 1, maxLength: 30 }), fc.constant('y'.repeat((schema.maxLength ?? 100) + 1)));
    case 'integer': return fc.oneof(fc.integer({ min: -5, max: 40 }), fc.integer(), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 2, ...edges));
    case 'number': return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, ...edges, 1e308));
    case 'boolean': return fc.boolean();
    case 'array': return fc.array(schema.items && depth < 3 ? shapedLike(schema.items, depth + 1) : wrongTyped, { maxLength: Math.min((schema.maxItems ?? 4) + 1, 6) });
    case 'object': return objectShapedLike(schema, depth);
    default: return wrongTyped;
  }
}

/** An object with some of the schema's fields (each right-typed, wrong-typed or junk), sometimes an unknown field. */
function objectShapedLike(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, depth < 3 ? shapedLike(s, depth + 1) : wrongTyped]));
  return fc.tuple(
    fc.record(fields, { requiredKeys: [] }),
    fc.option(fc.tuple(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'id', 'isOrga', 'role'), fc.string({ maxLength: 10 })), wrongTyped), { freq: 3 }),
  ).map(([record, extra]) => (extra ? { ...record, [extra[0]]: extra[1] } : record));
}

export function shapedLike(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: rightTyped(schema, depth) }, { weight: 1, arbitrary: wrongTyped });
}

/** A request body for an operation whose JSON body follows `schema` (or takes none): [payload, content-type]. */
export function hostileBody(schema: JsonSchema | undefined): fc.Arbitrary<[string | undefined, string | undefined]> {
  const json = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/vnd.api+json'];
  const other = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '', 'application/octet-stream'];
  const shaped = schema ? shapedLike(schema) : fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(shaped.map((v) => JSON.stringify(v) ?? 'null'), fc.constantFrom(...json)) },
    { weight: 1, arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'), fc.constantFrom(...json)) },
    { weight: 1, arbitrary: fc.tuple(junkString, fc.constantFrom(...json, ...other)) },
    { weight: 1, arbitrary: fc.tuple(shaped.map((v) => JSON.stringify(v) ?? ''), fc.constantFrom(...other)) },
    { weight: 1, arbitrary: fc.constant<[undefined, undefined]>([undefined, undefined]) },
  );
}
