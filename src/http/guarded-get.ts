/**
 * An outbound GET that only reaches addresses a policy allows
 * (guarded-request.ts), on every redirect hop. Redirects are followed by
 * hand, at most {@link MAX_REDIRECTS}; one deadline covers them all.
 */
import type { IncomingMessage } from 'node:http';
import { discard, guardedRequest, OutboundRefused, type GuardedRequestOptions } from './guarded-request.ts';

export const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface GuardedGetOptions extends GuardedRequestOptions {
  timeoutMs: number;
  maxBytes: number;
}

/** The body of a 2xx answer as text, or null for another status or an oversized body. Throws on refusal, timeout, network error. */
export async function guardedGet(url: string, options: GuardedGetOptions): Promise<string | null> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let target = new URL(url);
  for (let hop = 0; ; hop += 1) {
    const response = await guardedRequest(target, options, signal);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) {
      if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) > 299) {
        void discard(response);
        return null;
      }
      return readLimited(response, options.maxBytes);
    }
    void discard(response);
    if (hop >= MAX_REDIRECTS) throw new OutboundRefused(`more than ${MAX_REDIRECTS} redirects`);
    target = new URL(location, target);
  }
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
