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

/**
 * Of an answer whose status is all we need, at most this much is read: a
 * hostile or broken server could otherwise make us read an endless body.
 */
export const MAX_DISCARDED_BYTES = 4 * 1024;

/**
 * Reads and drops an answer's body; one longer than {@link MAX_DISCARDED_BYTES}
 * is cut off by closing the connection (Node reads a socket in chunks of up to
 * 64 KiB, so that much at most comes in before the cut). Resolves once the body
 * ended or was cut off or the request's deadline aborted it; never rejects.
 */
export function discard(response: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.byteLength;
      if (read > MAX_DISCARDED_BYTES) response.destroy();
    });
    for (const event of ['end', 'error', 'close']) response.once(event, () => resolve());
  });
}
