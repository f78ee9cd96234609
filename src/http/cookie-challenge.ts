/**
 * RFC 9110 §15.5.2: "The server generating a 401 (Unauthorized) response
 * MUST send a WWW-Authenticate header field containing at least one
 * challenge applicable to the target resource." The site's pages and `/api`
 * authenticate with the session cookie their login sets; the challenge says
 * so in the one form written down for that (draft-broyer-http-cookie-auth,
 * an expired Internet-Draft): the scheme `Cookie`, with the login's address
 * and the cookie's name. A client that knows no such scheme ignores it, and
 * no browser shows a dialog for it. The OAuth endpoints answer with their
 * own challenges (`Bearer`, `DPoP`, `Basic`), or with none where RFC 6749
 * §5.2 says so (client authentication in the form body): they are left alone.
 */
import type { FastifyInstance } from 'fastify';

const API_PREFIX = '/api';

/** The challenge of a 401 answered at `url` (a path, with its query, or a route's template). */
export function cookieChallenge(url: string, sessionCookie: string): string {
  const api = url === API_PREFIX || url.startsWith(`${API_PREFIX}/`) || url.startsWith(`${API_PREFIX}?`);
  return `Cookie realm="foodsharing", form-action="${api ? '/api/user/login' : '/login'}", cookie-name="${sessionCookie}"`;
}

/**
 * Adds the challenge to every 401 that carries none, outside /oauth/. Install before the routes. Decided by the
 * route's own path (its template, as the router matched it), not the request's, which may still be
 * percent-encoded (`/%6fauth/token` reaches the token endpoint).
 */
export function installCookieChallenge(app: FastifyInstance, sessionCookie: string): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const path = request.routeOptions.url ?? request.url;
    if (reply.statusCode === 401 && !reply.hasHeader('www-authenticate') && !path.startsWith('/oauth/')) {
      void reply.header('www-authenticate', cookieChallenge(path, sessionCookie));
    }
    done(null, payload);
  });
}
