/**
 * Generated hostile input (fast-check) against every operation of the OpenAPI
 * document, read from the built app: path parameters that follow their
 * pattern (ids of the demo data among them) or break it, declared and unknown
 * query parameters with wrong values, bodies shaped like the operation's schema
 * but wrong (types, limits, unknown fields) or plain junk, content types, CSRF
 * and Authorization headers — as anonymous and as four demo members, so that
 * for each operation both someone who may and someone who may not call it
 * send it. Never a 5xx, never a hang, and a refusal changes no table
 * (helpers/hostile-probe.ts). Fixed seed; FC_SEED and FC_RUNS explore more.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { headerValue, hostileBody, junkString, queryString, segment, type JsonSchema } from '../helpers/hostile-arbitraries.ts';
import { HostileProbe } from '../helpers/hostile-probe.ts';
import { listRoutes, toOpenApiPath } from '../helpers/routes.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const SEED = Number(process.env.FC_SEED ?? 20_261_122);
const RUNS = Number(process.env.FC_RUNS ?? 30);
/** Far above the default runs' time on a busy machine; more runs get more time. */
const TIMEOUT_MS = 240_000 * Math.max(1, RUNS / 30);
/** Ends the session the other requests use; its refusals are in test/api/plugin/hostile-input.test.ts and test/accounts/login-api.test.ts. */
const SKIPPED = new Set(['post /api/user/logout']);
const ACTORS = ['anonymous', 'foodsharer', 'foodsaver', 'ambassador', 'orga'] as const;

interface Parameter { in: 'path' | 'query' | 'header'; name: string; schema: JsonSchema }
interface Operation { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: JsonSchema }> }; responses: Record<string, unknown> }
interface Document { paths: Record<string, Record<string, Operation>> }

const t = useTestApp();
let probe: HostileProbe;
let doc: Document;
let toggles: string[] = [];
const sessions: Record<string, TestSession> = {};

beforeAll(async () => {
  await loadDemoData(t.db, t.keys);
  for (const name of ACTORS.slice(1)) sessions[name] = await logInAs(t.app, { email: `${name}@example.org`, password: DEMO_PASSWORD });
  doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
  toggles = ((await t.app.inject({ url: '/api/feature-toggles', headers: sessions.orga!.headers })).json() as { featureToggles?: Array<{ identifier: string }> })
    .featureToggles?.map((f) => f.identifier) ?? ['petitionBanner'];
  probe = await HostileProbe.start(t);
});
afterAll(async () => {
  process.stdout.write(`generated hostile requests against the /api operations: ${probe.describe()}\n`);
});

function operations(): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ method, path, op })))
    .filter((o) => !SKIPPED.has(`${o.method} ${o.path}`));
}

/** A value for a path parameter: one that fits its pattern (demo ids are small integers) most of the time, else junk. */
function pathValue(schema: JsonSchema): fc.Arbitrary<string> {
  const pattern = schema.pattern ?? '';
  const fitting = pattern.startsWith('^[1-9]') || pattern === '^\\d+$' ? fc.integer({ min: 0, max: 40 }).map(String)
    : pattern.startsWith('^\\d{4}') ? fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString())
      : pattern.includes('{8}') ? fc.uuid()
        : pattern === '^[a-zA-Z]+$' ? fc.oneof(fc.constantFrom(...toggles), fc.stringMatching(/^[a-zA-Z]{1,12}$/))
          : fc.oneof(fc.constant('webpush'), fc.stringMatching(/^\w{1,12}$/));
  return segment(fc.oneof({ weight: 3, arbitrary: fitting }, { weight: 1, arbitrary: junkString }));
}

function queryValue(schema: JsonSchema): fc.Arbitrary<string> {
  return schema.type === 'boolean' ? fc.oneof(fc.constantFrom('true', 'false', '1', '0', 'yes', ''), junkString) : junkString;
}

function requestFor(path: string, op: Operation) {
  const params = op.parameters ?? [];
  const pathParams = Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, pathValue(p.schema)]));
  const declared = params.filter((p) => p.in === 'query').map((p) => fc.option(queryValue(p.schema).map((v): [string, string] => [p.name, v]), { nil: undefined }));
  const unknown = fc.array(fc.tuple(fc.oneof(fc.constantFrom('foo', 'isFollowing', '__proto__', 'newState'), junkString), junkString), { maxLength: 2 });
  const pairs = fc.tuple(fc.tuple(...declared), fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: unknown }))
    .map(([d, u]) => [...d.filter((x): x is [string, string] => x !== undefined), ...u]);
  return fc.record({
    actor: fc.constantFrom(...ACTORS),
    csrf: fc.constantFrom('right', 'right', 'right', 'wrong', 'none'),
    path: fc.record(pathParams).map((values) => path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '')),
    query: fc.option(queryString(pairs), { freq: 2 }),
    body: hostileBody(op.requestBody?.content['application/json']?.schema),
    extra: fc.record({ authorization: headerValue.map((v) => `Bearer ${v}`), 'accept-language': headerValue, 'x-csrf-token': headerValue }, { requiredKeys: [] }),
  });
}

describe('generated hostile input against every operation of the OpenAPI document', () => {
  it('the document covers every /api route of the app', () => {
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.keys(byMethod).map((m) => `${m.toUpperCase()} ${path}`)));
    const routes = listRoutes(t.app).filter((r) => r.path.startsWith('/api/') && r.method !== 'HEAD' && !r.path.startsWith('/api/doc') && r.path !== '/api/openapi.json');
    expect(routes.map((r) => `${r.method} ${toOpenApiPath(r.path)}`).filter((r) => !documented.has(r))).toEqual([]);
    expect(operations().length).toBeGreaterThanOrEqual(30);
  });

  it('never answers 5xx, always answers, and changes nothing when it refuses', async () => {
    for (const [index, { method, path, op }] of operations().entries()) {
      const documented = Object.keys(op.responses).map(Number).filter((status) => status >= 500);
      await fc.assert(fc.asyncProperty(requestFor(path, op), async (r) => {
        const session = r.actor === 'anonymous' ? undefined : sessions[r.actor];
        const headers: Record<string, string> = { ...r.extra };
        if (session) headers.cookie = session.cookie;
        if (session && r.csrf === 'right') headers['x-csrf-token'] = session.csrfToken;
        else if (r.csrf === 'none') delete headers['x-csrf-token'];
        const [payload, contentType] = r.body;
        if (contentType !== undefined) headers['content-type'] = contentType;
        const url = r.query === null ? r.path : `${r.path}?${r.query}`;
        await probe.send({ method: method.toUpperCase() as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) },
          `${method.toUpperCase()} ${url.slice(0, 300)} as ${r.actor} (csrf ${r.csrf}, ${contentType ?? 'no body'})`, documented);
      }), { seed: SEED + index, numRuns: RUNS });
    }
    expect(await probe.settled()).toBe(true);
  }, TIMEOUT_MS);
});

