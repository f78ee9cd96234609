/**
 * One timed run: autocannon (as a library, in this process) against a child
 * over loopback, while the child's CPU and RSS are metered from /proc.
 */
import autocannon from 'autocannon';
import { meterHelpers, meterProcess } from './proc-stats.ts';

/**
 * The processes that work for a server under test (its database's backends,
 * redis-server), by the server's pid: their CPU is metered beside it.
 */
const helpers = new Map<number, () => Promise<number[]>>();

export function registerHelpers(serverPid: number, list: () => Promise<number[]>): void {
  helpers.set(serverPid, list);
}

export interface LoadSpec {
  url: string;
  connections: number;
  /** Seconds; without it, the run lasts until `amount` requests are done. */
  duration?: number;
  method?: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Per-request setup (shared by every connection). */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
  /** Per-connection requests (each connection its own closures: a refresh-token chain). */
  setupClient?: (client: autocannon.Client) => void;
  /** At most this many requests (pre-minted codes); the run then ends early. */
  amount?: number;
  /** Sees every response (status, body, headers with lower-case names). */
  onResponse?: (status: number, body: string, headers: Record<string, string>) => void;
  /** The status a good response has (200 unless said). */
  expectStatus?: number;
}

export interface RunResult {
  /** Good responses per second of wall time. */
  rps: number;
  good: number;
  /** Responses with another status, plus connection errors and timeouts. */
  bad: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  cpuCores: number | null;
  /** CPU of the server's helpers (database backends or redis-server) in cores, when registered and readable. */
  helperCpuCores: number | null;
  peakRssMb: number | null;
  seconds: number;
  /** The run ended before its duration (amount exhausted). */
  endedEarly: boolean;
}

export async function runLoad(pid: number, spec: LoadSpec): Promise<RunResult> {
  const expect = spec.expectStatus ?? 200;
  const statuses: Record<string, number> = {};
  let good = 0;
  let bad = 0;
  const request: autocannon.Request = {
    method: spec.method ?? 'GET',
    path: spec.path,
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    ...(spec.setupRequest ? { setupRequest: spec.setupRequest } : {}),
    ...(spec.onResponse ? { onResponse: wrapOnResponse(spec.onResponse) } : {}),
  };
  const meter = meterProcess(pid);
  const helperList = helpers.get(pid);
  const helperMeter = helperList ? meterHelpers(helperList) : undefined;
  const started = performance.now();
  let finish: (error: unknown, result?: autocannon.Result) => void = () => {};
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    finish = (error, result) => (error ? reject(error) : resolve(result!));
  });
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    ...(spec.duration !== undefined ? { duration: spec.duration } : {}),
    ...(spec.amount !== undefined ? { amount: spec.amount } : {}),
    requests: [request],
    ...(spec.setupClient ? { setupClient: spec.setupClient } : {}),
  }, (error, result) => finish(error, result));
  // With `amount`, autocannon ignores the duration: end it ourselves.
  const timer = spec.amount !== undefined && spec.duration !== undefined ? setTimeout(() => instance.stop(), spec.duration * 1000) : undefined;
  instance.on('response', (_client: autocannon.Client, statusCode: number) => {
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    if (statusCode === expect) good++;
    else bad++;
  });
  const result = await finished;
  const elapsed = (performance.now() - started) / 1000;
  if (timer) clearTimeout(timer);
  const { cpuCores, peakRssMb } = meter.stop();
  const helperCpuCores = helperMeter ? await helperMeter.stop() : null;
  const endedEarly = spec.duration !== undefined && elapsed < spec.duration * 0.98;
  if (result.errors > 0) statuses.errors = result.errors;
  if (result.timeouts > 0) statuses.timeouts = result.timeouts;
  return {
    rps: good / elapsed, good, bad: bad + result.errors, statuses,
    p50: result.latency.p50, p99: result.latency.p99,
    cpuCores, helperCpuCores, peakRssMb, seconds: elapsed, endedEarly,
  };
}

function wrapOnResponse(fn: NonNullable<LoadSpec['onResponse']>) {
  return (status: number, body: string, _context: object, headers: autocannon.Request['headers']) => {
    const lower: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers ?? {})) lower[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    fn(status, body, lower);
  };
}
