/**
 * Sends generated hostile requests through `inject`, one at a time, and holds
 * each to three rules: an answer within a bound (never a hang), never a 5xx,
 * and a refusal changes nothing — a 4xx, or an OAuth error redirect, leaves
 * the digest of every table as it was (failed-login counters aside: counting a
 * failure is their purpose). The write log (triggers) spares a digest after
 * requests that wrote nothing.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { AppUnderTest } from './app.ts';
import { databaseDigest } from './digest.ts';
import { installWriteLog, type WriteLog } from './write-log.ts';

/** Where a client authenticates (RFC 6749 §2.3): a 401 there names a scheme only for HTTP Basic (§5.2; docs/security.md). */
const CLIENT_AUTHENTICATION_ENDPOINTS = new Set(['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/par', '/oauth/device_authorization']);

/** Far above any answer on a busy machine, far below the test's timeout: a request past it hangs. */
const ANSWER_WITHIN_MS = 15_000;

/**
 * Tables a refused request may write by design: the failed-login counters,
 * the OAuth endpoints' failed-request counters, and the audit log, which
 * records refusals (a failed client authentication, a locked login).
 */
const COUNTERS_OF_REFUSALS = ['login_throttle', 'oauth_failure_windows', 'security_events'];

function withoutCounters(digest: string): string {
  return digest.split('\n').filter((line) => !COUNTERS_OF_REFUSALS.some((t) => line.startsWith(`${t}:`))).join('\n');
}

export function isRefusal(response: LightMyRequestResponse): boolean {
  if (response.statusCode >= 400) return true;
  const location = response.headers.location;
  return response.statusCode >= 300 && typeof location === 'string' && /[?&#]error=/.test(location);
}

export class HostileProbe {
  /** Requests sent so far. */
  sent = 0;
  /** Answers by status, to see how deep the generated requests got. */
  readonly statuses = new Map<number, number>();
  private baseline = '';

  private constructor(private readonly t: AppUnderTest, private readonly log: WriteLog) {}

  static async start(t: AppUnderTest): Promise<HostileProbe> {
    const probe = new HostileProbe(t, await installWriteLog(t.db));
    probe.baseline = await databaseDigest(t.db);
    return probe;
  }

  /**
   * Sends one request; throws (failing the property) when a rule is broken.
   * `documented`: 5xx statuses the operation declares as its behaviour (the
   * petition's 503 without a source), allowed.
   */
  async send(request: InjectOptions, label: string, documented: readonly number[] = []): Promise<LightMyRequestResponse> {
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms: ${label}`)), ANSWER_WITHIN_MS);
    });
    const response = await Promise.race([this.t.app.inject(request), hang]).finally(() => clearTimeout(timer));
    this.sent += 1;
    this.statuses.set(response.statusCode, (this.statuses.get(response.statusCode) ?? 0) + 1);
    if (response.statusCode >= 500 && !documented.includes(response.statusCode)) throw new Error(`${response.statusCode} for ${label}: ${response.body.slice(0, 300)}`);
    // RFC 9110 §15.5.2: a 401 carries a challenge; RFC 6749 §5.2 lets a client authenticated in the form body go without.
    const path = typeof request.url === 'string' ? request.url.split('?')[0]! : '';
    if (response.statusCode === 401 && response.headers['www-authenticate'] === undefined && !CLIENT_AUTHENTICATION_ENDPOINTS.has(path)) {
      throw new Error(`401 without WWW-Authenticate for ${label}`);
    }
    const written = await this.log.take();
    if (written.length === 0) return response;
    const after = await databaseDigest(this.t.db);
    if (isRefusal(response) && withoutCounters(after) !== withoutCounters(this.baseline)) {
      throw new Error(`${response.statusCode} refused ${label}, yet wrote to ${written.join(', ')}: ${response.body.slice(0, 200)}`);
    }
    this.baseline = after;
    return response;
  }

  describe(): string {
    return `${this.sent} requests; answers ${[...this.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s} × ${n}`).join(', ')}`;
  }

  /**
   * The digest of every table equals the one after the last write seen: no write escaped the log. The
   * refusals' counters and audit rows are left out: a refusal's event is stored after its answer.
   */
  async settled(): Promise<boolean> {
    return withoutCounters(await databaseDigest(this.t.db)) === withoutCounters(this.baseline);
  }
}
