/**
 * The HTTP server's limits against slow and greedy clients (a request whose
 * body never completes held a connection for ever; 1,000 of them held 1,000
 * sockets). Node's own defaults are no bound at all for an idle socket and
 * five minutes for a request, checked every 30 seconds.
 *
 * - a request must arrive whole within `requestTimeout` (config, 30 s), its
 *   headers within `headersTimeout` (10 s at most); Node then answers 408
 *   through the clientError handler (client-errors.ts) and closes;
 * - a socket on which nothing moves for `connectionTimeout` is destroyed
 *   (a client that stops reading its response);
 * - an idle keep-alive connection is closed after `keepAliveTimeout`, longer
 *   than the 60 s idle timeout of common load balancers so that they, not we,
 *   close it (no request lost in the race);
 * - at most `maxConnections` sockets at once (config, 1024); further ones are
 *   closed on accept, so slow clients cannot exhaust file descriptors;
 * - at most `maxConnectionsPerAddress` of them (config, 64) from one client
 *   address (connection-limit.ts), so that one client cannot hold them all;
 *   the reverse proxies a TRUST_PROXY list names are exempt.
 *
 * A socket that sends nothing counts as a request whose headers never
 * arrive: it is answered 408 and closed after `headersTimeout` as well.
 */
import http from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { compile } from '@fastify/proxy-addr';
import { limitConnectionsPerAddress, type RefusalReport } from './connection-limit.ts';

export interface ServerLimitSettings {
  readonly requestTimeoutSeconds: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  /** TRUST_PROXY: the addresses a list names are reverse proxies, not limited per address (`true` names none). */
  readonly trustProxy: boolean | string;
}

export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
const MAX_HEADERS_TIMEOUT_MS = 10_000;
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/**
 * Fastify options: the timeouts, and a server factory that applies them and the
 * connection caps; `reportRefusals` hears of sockets refused by the per-address cap.
 */
export function serverLimits(settings: ServerLimitSettings, reportRefusals?: RefusalReport) {
  const requestTimeout = settings.requestTimeoutSeconds * 1000;
  const headersTimeout = Math.min(MAX_HEADERS_TIMEOUT_MS, requestTimeout);
  const connectionTimeout = KEEP_ALIVE_TIMEOUT_MS + 3_000;
  const keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // With a serverFactory Fastify leaves the server alone: the factory sets what Fastify would, and more.
  const serverFactory: FastifyServerFactory = (handler) => {
    const server = http.createServer({
      requestTimeout, headersTimeout, keepAliveTimeout,
      connectionsCheckingInterval: Math.min(CONNECTIONS_CHECKING_INTERVAL_MS, headersTimeout),
    }, handler);
    server.setTimeout(connectionTimeout);
    server.maxConnections = settings.maxConnections;
    limitConnectionsPerAddress(server, settings.maxConnectionsPerAddress, reportRefusals, trustedProxies(settings.trustProxy));
    return server;
  };
  return { connectionTimeout, requestTimeout, keepAliveTimeout, serverFactory };
}

/** The reverse proxies a TRUST_PROXY list names; `true` (trust every hop) names none: anyone could claim to be one. */
function trustedProxies(trustProxy: boolean | string): (address: string) => boolean {
  if (typeof trustProxy !== 'string') return () => false;
  const isTrusted = compile(trustProxy.split(','));
  return (address) => isTrusted(address, 0);
}
