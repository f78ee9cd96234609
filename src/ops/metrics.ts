/**
 * `GET /metrics` in the Prometheus text format (prom-client), for operators:
 * requests and their latency per route and status, tokens issued per grant,
 * failed and throttled logins (password and passkey), security events by name, back-channel logout notices by outcome, the database pool's use, and the process's own
 * figures (event-loop lag, memory, CPU, handles). Everything is read from the
 * requests as they complete and from the pool when scraped: the protocol and
 * the services know nothing of it, and an app without METRICS_TOKEN registers
 * neither the hook nor the route.
 *
 * The route needs `Authorization: Bearer <METRICS_TOKEN>`: request counts and
 * route names are not for everyone, even where /metrics is reachable from the
 * Internet. One registry per app, so that several apps in one process (tests)
 * never share counters.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import type { PoolUse } from '../db/database.ts';
import { markJsonRoutes } from '../http/security-headers.ts';
import type { SecurityEvent } from './security-events.ts';

export const METRICS_PATH = '/metrics';

/** What a request did with a second factor, counted in `second_factor_total`. */
export type SecondFactorOutcome = 'enrolled' | 'removed' | 'code' | 'recovery_code' | 'passkey' | 'failure' | 'step_up' | 'step_up_unmet';

const secondFactorOutcomes = new WeakMap<FastifyRequest, SecondFactorOutcome[]>();

/** Notes an outcome of this request for the metrics (nothing happens without METRICS_TOKEN but a short-lived entry). */
export function noteSecondFactor(request: FastifyRequest, outcome: SecondFactorOutcome): void {
  const noted = secondFactorOutcomes.get(request);
  if (noted) noted.push(outcome);
  else secondFactorOutcomes.set(request, [outcome]);
}

const LOGIN_ROUTES = new Set(['POST /login', 'POST /api/user/login', 'POST /login/second-factor', 'POST /login/second-factor/passkey', 'POST /login/passkey']);
const TOKEN_ROUTE = 'POST /oauth/token';
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface MetricsOptions {
  readonly token: string;
  /** PostgreSQL's pool; absent for the embedded database. */
  readonly poolUse?: () => PoolUse;
  /** This instance's logout-notice attempts so far, by outcome (oauth/backchannel/). */
  readonly logoutNoticeCounts?: () => Readonly<Record<'sent' | 'retried' | 'abandoned', number>>;
  /** Where the security events are recorded: each is counted by name (passkeys added, removed, sign-ins, counter regressions, …). */
  readonly securityEvents?: { onRecord(listener: (event: SecurityEvent) => void): void };
}

type PromClient = typeof import('prom-client');

/** prom-client (about 0.05 s of CPU to load) is loaded only by an app with METRICS_TOKEN. */
export async function installMetrics(app: FastifyInstance, options: MetricsOptions): Promise<void> {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const record = requestRecorder(prom, registry);
  if (options.poolUse) registerPoolGauges(prom, registry, options.poolUse);
  if (options.logoutNoticeCounts) registerLogoutNoticeCounter(prom, registry, options.logoutNoticeCounts);
  if (options.securityEvents) {
    const counter = new prom.Counter({ name: 'security_events_total', help: 'Security events (docs/security-events.md), by name', labelNames: ['event'], registers: [registry] });
    options.securityEvents.onRecord((event) => counter.inc({ event: event.event }));
  }

  app.addHook('onResponse', async (request, reply) => record(request, reply));
  await app.register(async (scope) => {
    markJsonRoutes(scope);
    scope.get(METRICS_PATH, { logLevel: 'warn' }, async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      if (!bearsToken(request, options.token)) {
        return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send({ error: 'a valid metrics token is required' });
      }
      return reply.type(registry.contentType).send(await registry.metrics());
    });
  });
}

function requestRecorder({ Counter, Histogram }: PromClient, registry: Registry) {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route template and status', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'http_request_duration_seconds', help: 'Time from request to response, by route template and status',
    labelNames, buckets: LATENCY_BUCKETS, registers: [registry],
  });
  const tokens = new Counter({ name: 'oauth_tokens_issued_total', help: 'Successful token responses, by grant type', labelNames: ['grant_type'], registers: [registry] });
  const loginFailures = new Counter({ name: 'login_failures_total', help: 'Logins refused for wrong credentials', labelNames: ['route'], registers: [registry] });
  const loginThrottled = new Counter({ name: 'login_throttled_total', help: 'Logins refused by the attempt limits (lockouts)', labelNames: ['route'], registers: [registry] });
  const secondFactor = new Counter({
    name: 'second_factor_total', help: 'Second factor: one-time codes turned on (enrolled) or off (removed), codes, recovery codes and passkeys accepted at the second step, '
      + 'wrong codes or refused passkeys there (failure), step-ups done (step_up) and step-ups an app asked for that could not be met (step_up_unmet)',
    labelNames: ['outcome'], registers: [registry],
  });

  return (request: FastifyRequest, reply: FastifyReply): void => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const labels = { method: request.method, route, status: String(status) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    const key = `${request.method} ${route}`;
    if (key === TOKEN_ROUTE && status === 200) tokens.inc({ grant_type: grantTypeOf(request.body) });
    if (LOGIN_ROUTES.has(key) && status === 401) loginFailures.inc({ route });
    if (LOGIN_ROUTES.has(key) && status === 429) loginThrottled.inc({ route });
    for (const outcome of secondFactorOutcomes.get(request) ?? []) secondFactor.inc({ outcome });
  };
}

function registerPoolGauges({ Gauge }: PromClient, registry: Registry, poolUse: () => PoolUse): void {
  const gauge = (name: string, help: string, read: (use: PoolUse) => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.set(read(poolUse())); } });
  gauge('db_pool_connections_max', 'Connections the pool may open', (use) => use.max);
  gauge('db_pool_connections_open', 'Connections open (idle or in use)', (use) => use.open);
  gauge('db_pool_connections_idle', 'Open connections not in use', (use) => use.idle);
  gauge('db_pool_requests_waiting', 'Queries waiting for a free connection', (use) => use.waiting);
}

function registerLogoutNoticeCounter({ Counter }: PromClient, registry: Registry, counts: NonNullable<MetricsOptions['logoutNoticeCounts']>): void {
  new Counter({
    name: 'oauth_logout_notices_total', help: 'Back-channel logout notice attempts of this instance: sent, failed and retried later, abandoned',
    labelNames: ['outcome'], registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, count] of Object.entries(counts())) this.inc({ outcome }, count);
    },
  });
}

/** The grants the token endpoint issues tokens for (oauth/scopes.ts GRANT_TYPES, which ops/ may not import). */
const ISSUING_GRANT_TYPES: ReadonlySet<unknown> = new Set(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);

/** The label of a successful token request: its grant type; `other` for anything else, never a label from the request. */
export function grantTypeOf(body: unknown): string {
  const grantType = (body as { grant_type?: unknown } | undefined)?.grant_type;
  return ISSUING_GRANT_TYPES.has(grantType) ? grantType as string : 'other';
}

function bearsToken(request: FastifyRequest, token: string): boolean {
  const presented = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
