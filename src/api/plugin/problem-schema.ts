import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** RFC 9457 problem details as `/api` answers them. */
export const ProblemBodySchema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String({ description: 'stable machine-readable error code' }),
  errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
}, { title: 'Problem' });

/**
 * The declaration of every `/api` error response: {@link ProblemBodySchema}
 * as `application/problem+json`, the media type the error handler sends.
 * Fastify picks the serialiser by that media type, and the OpenAPI document
 * lists it instead of `application/json`.
 */
export const ProblemSchema = problemSchemaOf(ProblemBodySchema);

/** The declaration of an error response whose body has extension members (RFC 9457 §3.2) besides {@link ProblemBodySchema}'s. */
export function problemSchemaOf<T extends TSchema>(body: T) {
  return Type.Unsafe<Static<T>>({
    description: 'problem details (RFC 9457)',
    content: { 'application/problem+json': { schema: body } },
  });
}
