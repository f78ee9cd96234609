/**
 * What a member is shown of where a session runs (OWASP Session Management
 * Cheat Sheet: let users see and end their active sessions): the browser and
 * system named from the User-Agent (ua-parser-js), and the network the
 * session came from — the client address shortened to its IPv4 /24 or IPv6
 * /48, enough to tell "at home" from "somewhere else", not to locate anyone,
 * and all that is stored of it.
 */
import ipaddr from 'ipaddr.js';
import { UAParser } from 'ua-parser-js';

/** The User-Agent as stored: at most this many characters. */
export const MAX_USER_AGENT_LENGTH = 512;

export interface SessionDevice {
  readonly userAgent: string | null;
  readonly network: string | null;
}

/** What a login stores of its request. */
export function sessionDevice(userAgent: string | undefined, ip: string): SessionDevice {
  return { userAgent: userAgent ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null, network: networkOf(ip) };
}

/** `203.0.113.7` → `203.0.113.0/24`; `2001:db8:1:2::9` → `2001:db8:1::/48`; anything else null. */
export function networkOf(ip: string): string | null {
  const bare = ip.split('%', 1)[0]!;
  if (!ipaddr.isValid(bare)) return null;
  let address = ipaddr.parse(bare);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  if (address.kind() === 'ipv4') return `${address.toString().split('.').slice(0, 3).join('.')}.0/24`;
  return `${(address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 3).join(':')}::/48`;
}

export interface DeviceDescription {
  /** e.g. `Firefox 133`, `Mobile Safari 17`; undefined when the User-Agent names none. */
  readonly browser: string | undefined;
  /** e.g. `Windows 10`, `iOS 17.5`. */
  readonly system: string | undefined;
  readonly kind: 'mobile' | 'tablet' | 'desktop' | 'unknown';
}

/** The browser, system and kind of device a User-Agent names. */
export function describeDevice(userAgent: string | null): DeviceDescription {
  if (!userAgent) return { browser: undefined, system: undefined, kind: 'unknown' };
  const { browser, os, device } = UAParser(userAgent);
  const join = (name: string | undefined, version: string | undefined) => name === undefined ? undefined : [name, version].filter(Boolean).join(' ');
  const kind = device.type === 'mobile' || device.type === 'tablet' ? device.type : browser.name === undefined ? 'unknown' : 'desktop';
  return { browser: join(browser.name, browser.major), system: join(os.name, os.version), kind };
}
