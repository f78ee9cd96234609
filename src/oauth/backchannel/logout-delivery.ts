/**
 * One delivery attempt (Back-Channel Logout 1.0 §2.5, §2.8): the logout token
 * POSTed as the form parameter `logout_token` to the client's
 * `backchannel_logout_uri`, within a short deadline, no redirect followed.
 * Any 2xx is success (§2.8 asks for 200; frameworks often answer 204);
 * anything else — 400, 5xx, a redirect, a timeout, no connection — failed.
 */
import { guardedFormPost } from '../../http/guarded-post.ts';
import { OutboundRefused } from '../../http/guarded-request.ts';
import type { NoticeTargetPolicy } from './notice-target.ts';

/** The whole attempt (connect, send, answer's headers): a receiver that hangs costs us this, not more. */
export const DELIVERY_TIMEOUT_MS = 5_000;

export type DeliveryResult =
  | { readonly delivered: true }
  /** `permanent`: no later attempt can succeed (the target is refused by policy). */
  | { readonly delivered: false; readonly error: string; readonly permanent: boolean };

export async function deliverLogoutToken(
  uri: string, logoutToken: string, target: NoticeTargetPolicy, timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<DeliveryResult> {
  const refusal = target.refusal(uri);
  if (refusal !== undefined) return { delivered: false, error: `refused: ${refusal}`, permanent: true };
  try {
    const status = await guardedFormPost(uri, { logout_token: logoutToken }, {
      timeoutMs, isAllowedAddress: target.isAllowedAddress, headers: { 'cache-control': 'no-store' },
    });
    if (status >= 200 && status <= 299) return { delivered: true };
    return { delivered: false, error: `answered ${status}`, permanent: false };
  } catch (error) {
    return failure(error, timeoutMs);
  }
}

function failure(error: unknown, timeoutMs: number): DeliveryResult {
  if (error instanceof OutboundRefused) return { delivered: false, error: `refused: ${error.message}`, permanent: true };
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  if (name === 'TimeoutError' || name === 'AbortError') return { delivered: false, error: `no answer within ${timeoutMs} ms`, permanent: false };
  return { delivered: false, error: `not reachable: ${code ?? message ?? String(error)}`, permanent: false };
}
