/**
 * Response serialisers (fast-json-stringify, as Fastify builds them), compiled on a route's first
 * response with that status instead of at start (compile-on-first-use.ts).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { onFirstUse } from './compile-on-first-use.ts';

const fastifySerializers = SerializerSelector();

type BuildSerializer = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;

export const serializersOnFirstUse: BuildSerializer = (externalSchemas, options) => {
  const compile = fastifySerializers(externalSchemas, options as Parameters<typeof fastifySerializers>[1]);
  return (route) => {
    const serializer = onFirstUse(() => compile(route));
    return (data: unknown) => serializer()(data);
  };
};
