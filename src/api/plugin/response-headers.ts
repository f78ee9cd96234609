/**
 * Response declarations that name the headers a response carries, for the
 * OpenAPI document (a Response Object's `headers`): @fastify/swagger reads a
 * declaration's `headers`, Fastify serialises only its `content`, so naming a
 * header changes nothing the server sends. The route sets the header itself;
 * `test/api/openapi.test.ts` checks that the real responses carry what the
 * document names.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

interface HeaderDeclaration {
  readonly description: string;
  readonly type: 'integer' | 'string';
  readonly [keyword: string]: unknown;
}
type Headers = Readonly<Record<string, HeaderDeclaration>>;

/** RFC 9110 §10.2.3, in its delay-seconds form (the only one `/api` sends). */
export const RETRY_AFTER: Headers = {
  'Retry-After': { type: 'integer', minimum: 0, description: 'seconds to wait before trying again' },
};

/** RFC 9110 §15.5.2, as every 401 under `/api` carries it (http/cookie-challenge.ts). */
export const WWW_AUTHENTICATE: Headers = {
  'WWW-Authenticate': {
    type: 'string', pattern: '^Cookie realm="foodsharing", form-action="[^"]+", cookie-name="(__Host-)?fs_session"$',
    description: 'the challenge of the session cookie (fs_session; __Host-fs_session in production): log in at form-action '
      + '(/api/user/login; /login for an account with a second factor)',
  },
};

/**
 * `declaration` with `headers` named: a declaration in the `content` form (`problemSchemaOf`) keeps
 * its content, and so does one without a body (`Type.Null()`); a JSON body's schema is put in that
 * form as `application/json`.
 */
export function withHeaders<T extends TSchema>(declaration: T, headers: Headers, description = declaration.description) {
  const response = 'content' in declaration || declaration.type === 'null'
    ? declaration
    : { description, content: { 'application/json': { schema: declaration } } };
  return Type.Unsafe<Static<T>>({ ...response, headers });
}
