import { Type } from '@sinclair/typebox';

/** RFC 9457 problem details as `/api` answers them; referenced by every route's error responses. */
export const ProblemSchema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String({ description: 'stable machine-readable error code' }),
  errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
}, { description: 'application/problem+json (RFC 9457)' });
