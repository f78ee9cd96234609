/**
 * An outbound HTTP request that only reaches addresses a policy allows,
 * checked where the connection is made: for IP literals before connecting,
 * and after DNS resolution (the `lookup` of the socket, so a name that
 * resolves differently a second time — DNS rebinding — gains nothing).
 * Shared by the redirect-following GET (guarded-get.ts) and the form POST
 * (guarded-post.ts).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** Refused before any connection: a disallowed address, a bad redirect, too many hops. */
export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';
}

export interface GuardedRequestOptions {
  /** Whether a resolved IP address may be connected to. */
  isAllowedAddress(address: string): boolean;
  headers?: Record<string, string>;
}

/** Sends one request (no redirect is followed) and resolves with the response once its headers arrive. */
export function guardedRequest(
  target: URL, options: GuardedRequestOptions, signal: AbortSignal, method = 'GET', body?: string,
): Promise<IncomingMessage> {
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new OutboundRefused(`${target.protocol} is not http(s)`));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !options.isAllowedAddress(host)) return Promise.reject(new OutboundRefused(`${host} is not an allowed address`));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(target, { method, signal, headers: options.headers, lookup: guardedLookup(options.isAllowedAddress), agent: false }, resolve);
    req.on('error', reject);
    req.end(body);
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

/** Reads and drops a response body we do not need, so the socket can close. */
export function discard(response: IncomingMessage): null {
  response.resume();
  return null;
}
