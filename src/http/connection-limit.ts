/**
 * At most `perAddress` open connections from one source address. Without it
 * one client held every slot of the global cap (`server.maxConnections`):
 * with 1,030 slow sockets from one address, 96 of 99 requests of other
 * clients were reset.
 *
 * The address is the socket's, never a forwarded one: the limit is decided
 * on accept, before a byte of the request is read, so X-Forwarded-For (even
 * under TRUST_PROXY) cannot spread one client over many addresses. An
 * IPv4-mapped IPv6 address counts as its IPv4 address, and IPv6 addresses
 * count by their /64 prefix: a single subscriber is usually given a whole
 * /64 (RFC 6177), so its 2^64 addresses are one client.
 *
 * A refused socket is destroyed in the first `connection` listener, so it
 * gives back its slot of `server.maxConnections` at once (net.Socket's
 * destroy decrements the server's count synchronously): a client over its
 * limit takes nothing from the others.
 */
import { isIPv4, isIPv6, type Server, type Socket } from 'node:net';

/** Told of refused sockets: the address (as counted) and how many were refused since the last call. */
export type RefusalReport = (address: string, refused: number) => void;

/** Refusals are reported at most this often: an attacker's thousands of sockets make one line. */
const REPORT_INTERVAL_MS = 60_000;

/** Counts the open connections of each source address on `server` and closes those beyond `perAddress`. */
export function limitConnectionsPerAddress(server: Server, perAddress: number, report: RefusalReport = () => {}): void {
  const open = new Map<string, number>();
  const refusals = { count: 0, reportedAt: -Infinity };
  server.prependListener('connection', (socket: Socket) => {
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
  if (isIPv4(remoteAddress)) return remoteAddress;
  const bare = remoteAddress.split('%', 1)[0]!; // a zone index (fe80::1%eth0) names an interface, not a client
  if (!isIPv6(bare)) return remoteAddress;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 6).join(':') === '0:0:0:0:0:ffff') { // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2)
    return groups.slice(6).flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 0xff]).join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const groupsOf = (part: string) => part === '' ? [] : part.split(':').flatMap((group) => {
    if (!group.includes('.')) return [group];
    const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
    return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  });
  const [head = '', tail] = address.split('::');
  const first = groupsOf(head);
  const last = tail === undefined ? [] : groupsOf(tail);
  const zeros = Array.from({ length: 8 - first.length - last.length }, () => '0');
  return [...first, ...zeros, ...last].map((group) => parseInt(group, 16).toString(16));
}
