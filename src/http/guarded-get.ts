/**
 * An outbound GET that only reaches addresses a policy allows, checked where
 * the connection is made: after DNS resolution (the `lookup` of the socket,
 * so a name that resolves differently a second time — DNS rebinding — gains
 * nothing) and for IP literals, on every redirect hop. Redirects are
 * followed by hand, at most {@link MAX_REDIRECTS}; one deadline covers them all.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

export const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface GuardedGetOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Whether a resolved IP address may be connected to. */
  isAllowedAddress(address: string): boolean;
  headers?: Record<string, string>;
}

/** Refused before any connection: a disallowed address, a bad redirect, too many hops. */
export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';
}

/** The body of a 2xx answer as text, or null for another status or an oversized body. Throws on refusal, timeout, network error. */
export async function guardedGet(url: string, options: GuardedGetOptions): Promise<string | null> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let target = new URL(url);
  for (let hop = 0; ; hop += 1) {
    const response = await request(target, options, signal);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) {
      if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) > 299) return discard(response);
      return readLimited(response, options.maxBytes);
    }
    response.resume();
    if (hop >= MAX_REDIRECTS) throw new OutboundRefused(`more than ${MAX_REDIRECTS} redirects`);
    target = new URL(location, target);
  }
}

function request(target: URL, options: GuardedGetOptions, signal: AbortSignal): Promise<IncomingMessage> {
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new OutboundRefused(`${target.protocol} is not http(s)`));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !options.isAllowedAddress(host)) return Promise.reject(new OutboundRefused(`${host} is not an allowed address`));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(target, { signal, headers: options.headers, lookup: guardedLookup(options.isAllowedAddress), agent: false }, resolve);
    req.on('error', reject);
  });
}

/** dns.lookup, refusing when any address the name resolves to is not allowed. */
function guardedLookup(isAllowedAddress: (address: string) => boolean): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => !isAllowedAddress(a.address));
      if (refused || addresses.length === 0) {
        return callback(new OutboundRefused(`${hostname} resolves to ${refused?.address ?? 'nothing'}, not an allowed address`), '', 0);
      }
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

async function readLimited(response: IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limit) {
      response.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function discard(response: IncomingMessage): null {
  response.resume();
  return null;
}
