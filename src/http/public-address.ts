/**
 * Which IP addresses an outbound request of ours may reach (server-side
 * request forgery: OWASP SSRF Prevention Cheat Sheet). Only globally routable
 * unicast addresses are public: loopback, private (RFC 1918, RFC 4193),
 * link-local (cloud metadata lives at 169.254.169.254), shared (RFC 6598),
 * unspecified, multicast and reserved ranges are not, nor are IPv6 addresses
 * that embed one of those IPv4 addresses (mapped, NAT64, 6to4).
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IPv4 or IPv6 literal) is a globally routable unicast address. Anything else is not. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return !blocked.check(bare, 'ipv4');
  if (version !== 6) return false;
  const embedded = embeddedIPv4(bare);
  if (embedded !== undefined) return !blocked.check(embedded, 'ipv4') && !blocked.check(bare, 'ipv6');
  return !blocked.check(bare, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedIPv4(address: string): string | undefined {
  const groups = expandIPv6(address);
  const zeroPrefix = groups.slice(0, 5).every((g) => g === 0);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (zeroPrefix && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return undefined;
}

/** Eight 16-bit groups of a valid IPv6 literal (a trailing dotted quad included). */
function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
