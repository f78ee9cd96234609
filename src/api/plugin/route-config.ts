/**
 * What an `/api` route declares in its `config` about logging in and CSRF
 * (SPEC §4), read by the `/api` hook (context.ts) and by the OpenAPI
 * document (openapi-operation.ts), so that the two cannot drift apart.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** `required`: 401 when logged out; `required-403`: 403 when logged out; default: optional. */
    auth?: 'required' | 'required-403' | 'optional';
    /** Set false only for the login call itself. */
    csrf?: boolean;
    /**
     * The route's own statement reads the session, and checks the CSRF token of a mutating call
     * (api/actor.ts `inSessionStatement`): the hook leaves both to it (route-auth.ts
     * `sessionForStatement`). Needs `attachValidation`, so that 401 and 403 still come before 400.
     */
    sessionInStatement?: boolean;
    /**
     * Body fields (RFC 6901 pointers, `/filename`) where an escape of half a surrogate pair is taken
     * rather than refused (body.ts): a file name from a file system, where it is a name like any other;
     * the route replaces it (U+FFFD).
     */
    halfSurrogatesIn?: ReadonlySet<string>;
  }
}

export interface ApiRouteConfig { auth?: 'required' | 'required-403' | 'optional'; csrf?: boolean; sessionInStatement?: boolean }

/** The methods that change state: with a session, each needs the X-CSRF-Token header. */
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isMutating(method: string): boolean {
  return MUTATING.has(method);
}

/** Whether a call with this method to a route with this config must carry the session's CSRF token. */
export function needsCsrfToken(method: string, config: ApiRouteConfig): boolean {
  return config.csrf !== false && isMutating(method);
}

export function isLoginRequired(config: ApiRouteConfig): boolean {
  return config.auth === 'required' || config.auth === 'required-403';
}
