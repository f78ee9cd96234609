/**
 * Named component schemas: every schema of the document with a `title` (the
 * resources of the API: `Basket`, `Poll`, `Problem`, …) moves to
 * `components.schemas` under that title, and each place it appeared refers to
 * it (`$ref`), so that a generated client names its types after the resources.
 * The route schemas keep their titles inline (the validators and serialisers
 * never see a `$ref`); only the document is rewritten, once, when it is built.
 * Two different schemas under one title are a programming error, refused when
 * the document is built.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type SchemaObject = { [key: string]: Json };

/** Keywords whose values are data, not schemas: a `title` inside them names nothing. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'example', 'examples']);

const COMPONENTS_PREFIX = '#/components/schemas/';

/** `document` with its titled schemas moved to `components.schemas`. */
export function hoistNamedSchemas<T extends object>(document: T): T {
  const named = new Map<string, { schema: SchemaObject; text: string }>();

  const hoist = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(hoist);
    if (node === null || typeof node !== 'object') return node;
    const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, DATA_KEYWORDS.has(key) ? value : hoist(value)]));
    const title = copy.title;
    if (typeof title !== 'string' || !isSchema(copy)) return copy;
    const text = JSON.stringify(copy);
    const earlier = named.get(title);
    if (earlier !== undefined && earlier.text !== text) {
      throw new Error(`OpenAPI: two different schemas are titled "${title}"`);
    }
    named.set(title, { schema: copy, text });
    return { $ref: `${COMPONENTS_PREFIX}${title}` };
  };

  const { components, ...rest } = document as { components?: { schemas?: SchemaObject } & SchemaObject } & SchemaObject;
  const hoisted = hoist(rest as Json) as SchemaObject;
  const schemas = Object.fromEntries([...named].sort(([a], [b]) => a.localeCompare(b)).map(([title, { schema }]) => [title, schema]));
  return { ...hoisted, components: { ...components, schemas: { ...components?.schemas, ...schemas } } } as T;
}

/** Keywords only a JSON Schema has: an object of the document with a `title` field (an `info`) has none. */
const SCHEMA_KEYWORDS = ['type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'];

function isSchema(node: SchemaObject): boolean {
  return SCHEMA_KEYWORDS.some((keyword) => keyword in node);
}
