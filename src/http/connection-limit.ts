/**
 * At most `perAddress` open connections from one source address. Without it
 * one client held every slot of the global cap (`server.maxConnections`):
 * with 1,030 slow sockets from one address, 96 of 99 requests of other
 * clients were reset.
 *
 * The address is the socket's, never a forwarded one: the limit is decided
 * on accept, before a byte of the request is read, so X-Forwarded-For (even
 * under TRUST_PROXY) cannot spread one client over many addresses. The
 * proxies a TRUST_PROXY list names are not limited per address (they carry
 * every client's connections); `TRUST_PROXY=true` names none. An
 * IPv4-mapped IPv6 address counts as its IPv4 address, and IPv6 addresses
 * count by their /64 prefix: a single subscriber is usually given a whole
 * /64 (RFC 6177), so its 2^64 addresses are one client.
 *
 * A refused socket is destroyed in the first `connection` listener, so it
 * gives back its slot of `server.maxConnections` at once (net.Socket's
 * destroy decrements the server's count synchronously): a client over its
 * limit takes nothing from the others.
 */
import type { Server, Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Told of refused sockets: the address (as counted) and how many were refused since the last call. */
export type RefusalReport = (address: string, refused: number) => void;

/** Refusals are reported at most this often: an attacker's thousands of sockets make one line. */
const REPORT_INTERVAL_MS = 60_000;

/**
 * Counts the open connections of each source address on `server` and closes those beyond `perAddress`.
 * Sockets from an address `isTrustedProxy` names are not limited per address: a reverse proxy carries
 * every client's connections, and limiting per client is then its work (they count in the global cap).
 */
export function limitConnectionsPerAddress(server: Server, perAddress: number, report: RefusalReport = () => {}, isTrustedProxy: (address: string) => boolean = () => false): void {
  const open = new Map<string, number>();
  const refusals = { count: 0, reportedAt: -Infinity };
  server.prependListener('connection', (socket: Socket) => {
    if (socket.remoteAddress !== undefined && isTrustedProxy(socket.remoteAddress)) return;
    // No address: the peer already reset the connection before it was accepted.
    const address = socket.remoteAddress === undefined ? undefined : clientAddress(socket.remoteAddress);
    const count = address === undefined ? perAddress : open.get(address) ?? 0;
    if (count >= perAddress) {
      socket.destroy();
      noteRefusal(refusals, address ?? 'unknown', report);
      return;
    }
    open.set(address!, count + 1);
    socket.once('close', () => {
      const left = (open.get(address!) ?? 1) - 1;
      if (left === 0) open.delete(address!);
      else open.set(address!, left);
    });
  });
}

function noteRefusal(refusals: { count: number; reportedAt: number }, address: string, report: RefusalReport): void {
  refusals.count += 1;
  const now = performance.now();
  if (now - refusals.reportedAt < REPORT_INTERVAL_MS) return;
  report(address, refusals.count);
  refusals.count = 0;
  refusals.reportedAt = now;
}

/** The client a socket address stands for: IPv4 as it is (also when IPv4-mapped), IPv6 by its /64 prefix. */
export function clientAddress(remoteAddress: string): string {
  const bare = remoteAddress.split('%', 1)[0]!; // a zone index (fe80::1%eth0) names an interface, not a client
  if (!ipaddr.isValid(bare)) return remoteAddress;
  const address = ipaddr.parse(bare);
  if (address.kind() === 'ipv4') return address.toString();
  const ipv6 = address as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString(); // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2)
  return `${ipv6.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

/**
 * {@link clientAddress} as the key of a counter kept in PostgreSQL, whose text holds no NUL: the
 * per-client limits of logins, passkeys, device codes and mailed links count an IPv6 /64 as one client,
 * as the connection limit does (an IPv6 host is handed a /64 and picks addresses in it at will).
 */
export function clientCounterKey(remoteAddress: string): string {
  return clientAddress(remoteAddress).replace(/\u0000/g, '\uFFFD');
}
