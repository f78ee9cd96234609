/**
 * The server's pino options. Operators read JSON lines (one object per line,
 * for a log shipper); a person running the server on a terminal reads
 * pino-pretty's one coloured line per entry instead, multi-line messages such
 * as the demo logins included. pino-pretty runs in pino's transport worker,
 * loaded only when asked for.
 */
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';

const REDACT = {
  paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]', 'res.headers["set-cookie"]'],
  censor: '[redacted]',
};

/** A `/`, `?`, `&` or `=` as a URL holds it: as is, encoded once (inside a `return_to`), or encoded again (a `return_to` inside one). */
const SLASH = '(?:\\/|%(?:25)*2F)';
const QUERY_START = '(?:[?&]|%(?:25)*3F|%(?:25)*26)';
const EQUALS = '(?:=|%(?:25)*3D)';

/** A `%` that does not begin an encoded `?`, `#` or `&` (at any depth of encoding): part of the path. */
const PERCENT_IN_PATH = '%(?!(?:25)*(?:3F|23|26))';

/** Between two words of the path: slashes, and dot segments a browser resolves (`/./`, `/../`; `%2e` is decoded before). */
const BETWEEN = `(?:${SLASH}+\\.{1,2})*${SLASH}+`;

/**
 * Paths that carry a one-time secret (the unlock and reset links): the log keeps
 * the path, not the secret — wherever the path stands: the request's own, or the
 * `return_to` of another page (the language switch of the link's page, a login)
 * — in every spelling that reaches the page or its 404: repeated slashes, dot
 * segments, escapes in the secret (the router decodes them). Everything after the
 * prefix, to the end of the path (or of the `return_to`), is the secret's.
 */
const SECRET_IN_PATH = new RegExp(
  `(${SLASH}(?:login${BETWEEN}unlock|password${BETWEEN}reset)${SLASH}+)(?:[^?#&%]|${PERCENT_IN_PATH})+`, 'gi');

/**
 * RFC 3986 §6.2.2.2: an escaped letter, digit, `-`, `.`, `_` or `~` is that character (the router reads it
 * so), at any depth of encoding (`%2561` inside a `return_to` is `%61` once decoded, then `a`).
 */
function decodeUnreserved(url: string): string {
  let decoded = url;
  // Until nothing changes: `%25%36%31` becomes `%2561`, then `a` (a few rounds at most; a URL is short).
  for (let round = 0; round < 8 && decoded.includes('%'); round += 1) {
    const next = decoded.replace(/%(?:25)*([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
      const character = String.fromCharCode(Number.parseInt(hex, 16));
      return /[A-Za-z0-9\-._~]/.test(character) ? character : escape;
    });
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}

/**
 * Query parameters that carry a secret or a member's address, also inside an
 * encoded `return_to`: a device's user code and the device flow's continuation
 * (RFC 8628, /device); tokens, hints and client credentials that a client may
 * put in a URL (userinfo's `access_token`, logout's `id_token_hint`,
 * authorize's `login_hint` and request object, and whatever a misbehaving
 * client sends the token endpoint in its query).
 */
const SECRET_PARAMETERS = ['user_code', 'continuation', 'access_token', 'refresh_token', 'id_token_hint', 'login_hint', 'request',
  'client_secret', 'client_assertion', 'code', 'code_verifier', 'device_code', 'token', 'password'];
const SECRET_IN_QUERY = new RegExp(`(${QUERY_START})(${SECRET_PARAMETERS.join('|')})(${EQUALS})[^&#]*`, 'gi');

export function redactRequestUrl(url: string): string {
  return decodeUnreserved(url).replace(SECRET_IN_PATH, '$1[redacted]').replace(SECRET_IN_QUERY, '$1$2$3[redacted]');
}

/** Fastify's request serializer, with the URL's one-time secrets left out. */
const SERIALIZERS = {
  req: (request: FastifyRequest) => ({
    method: request.method, url: redactRequestUrl(request.url), host: request.host,
    remoteAddress: request.ip, remotePort: request.socket?.remotePort,
  }),
};

/** Whether the log is written for a person: `pretty`, or `auto` on a terminal outside production. */
export function isPrettyLog(config: Pick<Config, 'logFormat' | 'isProduction'>, isTerminal: boolean): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === 'auto' && isTerminal && !config.isProduction);
}

export function loggerOptions(config: Config, isTerminal = process.stdout.isTTY === true): FastifyServerOptions['logger'] {
  if (!isPrettyLog(config, isTerminal)) return { level: config.logLevel, redact: REDACT, serializers: SERIALIZERS };
  return {
    level: config.logLevel,
    redact: REDACT,
    serializers: SERIALIZERS,
    transport: {
      target: 'pino-pretty',
      options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true, colorize: isTerminal },
    },
  };
}
