/** The soak's HTTP calls: each bounded in time, sorted into acknowledged, refused and unanswered. */
import { send, type Sent } from '../scenarios/scenario.ts';
import type { Kind, Ledger } from './ledger.ts';

/** A request of the soak that got no answer within this is counted as unanswered. */
const REQUEST_TIMEOUT_MS = 30_000;

export type Outcome = { ok: true; answer: Sent } | { ok: false; answer: Sent | undefined };

/** A login of a demo user: its cookies and CSRF token, for writes in its name. */
export interface Member { email: string; userId: number; cookie: string; csrfToken: string }

export interface Phase {
  /** Set once the server is killed: writers finish the request in flight and stop. */
  stopped: boolean;
}

/**
 * Sends one write; counts it as refused (any answer but 2xx, or but `success`
 * when given) or unanswered; the caller counts acknowledgements.
 */
export async function write(ledger: Ledger, kind: Kind, url: string, init: RequestInit, success?: number): Promise<Outcome> {
  let answer: Sent;
  try {
    answer = await send(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch {
    ledger.unanswered(kind);
    return { ok: false, answer: undefined };
  }
  if (success === undefined ? answer.status >= 200 && answer.status < 300 : answer.status === success) return { ok: true, answer };
  ledger.refused(kind, answer.status);
  return { ok: false, answer };
}

export function jsonHeaders(member: Member): Record<string, string> {
  return { cookie: member.cookie, 'x-csrf-token': member.csrfToken, 'content-type': 'application/json' };
}

export function cookieOf(answer: Sent): string {
  return answer.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

/** Runs `step` until the phase stops; a step that throws is a bug of the soak, not of the server. */
export async function repeat(phase: Phase, step: () => Promise<void>): Promise<void> {
  while (!phase.stopped) await step();
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The grant an access token names: its `jti` is `<grant id>.<random>`. */
export function grantOf(accessToken: string): number {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { jti?: string };
  return Number(String(payload.jti).split('.')[0]);
}
