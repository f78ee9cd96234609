/**
 * An outbound form POST that only reaches addresses a policy allows
 * (guarded-request.ts) and follows no redirect: the answer's status is the
 * result. The body is not read: the connection is closed once the headers
 * are in, so a receiver answering 200 MB (or an endless stream) costs us
 * what one socket read holds, not the download. One deadline covers
 * connecting, sending and the answer's headers.
 */
import { guardedRequest, type GuardedRequestOptions } from './guarded-request.ts';

export interface GuardedPostOptions extends GuardedRequestOptions {
  timeoutMs: number;
}

/** The status of the answer. Throws on refusal (OutboundRefused), timeout (TimeoutError) or a network error. */
export async function guardedFormPost(url: string, form: Record<string, string>, options: GuardedPostOptions): Promise<number> {
  const body = new URLSearchParams(form).toString();
  const headers = { ...options.headers, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) };
  const response = await guardedRequest(new URL(url), { ...options, headers }, AbortSignal.timeout(options.timeoutMs), 'POST', body);
  response.destroy(); // no keep-alive (agent: false): the socket goes with it
  return response.statusCode ?? 0;
}
