/**
 * An outbound form POST that only reaches addresses a policy allows
 * (guarded-request.ts) and follows no redirect: the answer's status is the
 * result; of the body at most a few KiB are read and dropped
 * (guarded-request.ts `discard`). One deadline covers connecting, sending,
 * the answer's headers and that read.
 */
import { discard, guardedRequest, type GuardedRequestOptions } from './guarded-request.ts';

export interface GuardedPostOptions extends GuardedRequestOptions {
  timeoutMs: number;
}

/** The status of the answer. Throws on refusal (OutboundRefused), timeout (TimeoutError) or a network error. */
export async function guardedFormPost(url: string, form: Record<string, string>, options: GuardedPostOptions): Promise<number> {
  const body = new URLSearchParams(form).toString();
  const headers = { ...options.headers, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) };
  const response = await guardedRequest(new URL(url), { ...options, headers }, AbortSignal.timeout(options.timeoutMs), 'POST', body);
  await discard(response);
  return response.statusCode ?? 0;
}
