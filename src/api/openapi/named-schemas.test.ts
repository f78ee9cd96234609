import { describe, expect, it } from 'vitest';
import { hoistNamedSchemas } from './named-schemas.ts';

const point = { title: 'Point', type: 'object', properties: { x: { type: 'number' } } };

describe('hoistNamedSchemas', () => {
  it('moves a titled schema to the components, refers to it, and leaves data and the document\'s own titles alone', () => {
    const document = {
      info: { title: 'API', version: '1' },
      paths: { '/a': { get: { responses: { 200: { content: { 'application/json': { schema: { type: 'array', items: point } } } } } } } },
      components: { securitySchemes: { s: { type: 'apiKey' } } },
      examples: { title: 'not a schema' },
    };
    expect(hoistNamedSchemas(document)).toEqual({
      info: { title: 'API', version: '1' },
      paths: { '/a': { get: { responses: { 200: { content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Point' } } } } } } } } },
      components: { securitySchemes: { s: { type: 'apiKey' } }, schemas: { Point: point } },
      examples: { title: 'not a schema' },
    });
  });

  it('refers to a titled schema inside another from the other\'s component', () => {
    const line = { title: 'Line', type: 'object', properties: { from: point, to: point } };
    const hoisted = hoistNamedSchemas({ paths: { '/l': { schema: line } } });
    expect(hoisted.paths['/l'].schema).toEqual({ $ref: '#/components/schemas/Line' });
    expect((hoisted as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas).toEqual({
      Line: { ...line, properties: { from: { $ref: '#/components/schemas/Point' }, to: { $ref: '#/components/schemas/Point' } } },
      Point: point,
    });
  });

  it('refuses two different schemas under one title', () => {
    const other = { ...point, properties: { y: { type: 'number' } } };
    expect(() => hoistNamedSchemas({ paths: { a: point, b: other } })).toThrow('OpenAPI: two different schemas are titled "Point"');
  });
});
