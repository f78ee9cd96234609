import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { listRoutes, toOpenApiPath } from '../helpers/routes.ts';

interface Operation { tags?: string[]; summary?: string; operationId?: string; security?: Record<string, string[]>[]; requestBody?: unknown; responses: Record<string, unknown> }
interface NamedSchema { title: string; properties: Record<string, unknown> }
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, NamedSchema> };
}

/** The seed's operations with the status codes its Errors table lists (otherwise its success code). */
const SEED_OPERATIONS: [string, string, number[]][] = [
  ['delete', '/api/report/{reportId}', [200]],
  ['get', '/api/quiz/sessions/{foodsaverId}', [200]],
  ['delete', '/api/quiz/session/{sessionId}', [200, 400, 401, 404]],
  ['get', '/api/region/{regionId}/pin', [200]],
  ['get', '/api/stores/{storeId}/posts', [200, 401, 403]],
  ['delete', '/api/stores/{storeId}/posts/{postId}', [200, 401, 403]],
  ['post', '/api/stores/{storeId}/pickups/{pickupDate}/{fsId}', [200]],
  ['post', '/api/stores/{storeId}/managers/{userId}', [200, 401, 403, 404, 422]],
  ['post', '/api/contents', [200, 401, 403, 404]],
  ['delete', '/api/contents/{contentId}', [200]],
  ['patch', '/api/content/{contentId}', [200]],
  ['patch', '/api/baskets/{basketId}', [200, 401, 403, 404]],
  ['post', '/api/baskets/{basketId}/withdraw', [200, 401, 404]],
  ['patch', '/api/polls/{pollId}', [200, 401, 403, 404]],
  ['put', '/api/regions/{regionId}/forum/subscriptions', [200, 401, 403]],
  ['patch', '/api/feature-toggles/{featureToggle}', [200, 403, 404]],
  ['patch', '/api/notifications/regions', [200, 403]],
  ['get', '/api/push-notification/{type}/server-information', [200, 401, 404]],
  ['get', '/api/petition', [200, 503]],
  ['post', '/api/uploads', [200, 400, 401]],
];

const t = useTestApp();
let doc: Document;

beforeAll(async () => {
  const response = await t.app.inject({ url: '/api/openapi.json' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  doc = response.json();
});

/** The schema of the document's `components.schemas` that `ref` (`#/components/schemas/Name`) names. */
function namedSchema(ref: string): NamedSchema {
  return doc.components.schemas[ref.split('/').at(-1)!]!;
}

function operations(): Array<[string, string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, operation]) => [path, method, operation] as [string, string, Operation]));
}

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
  });

  it('declares the X-CSRF-Token header as the csrf security scheme', () => {
    expect(doc.components.securitySchemes.csrf).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-CSRF-Token' });
  });

  it('lists every /api route of the app, and nothing outside /api', () => {
    const apiRoutes = listRoutes(t.app)
      .filter((r) => r.path.startsWith('/api/') && r.method !== 'HEAD')
      .filter((r) => r.path !== '/api/openapi.json' && !r.path.startsWith('/api/doc'));
    expect(apiRoutes.length).toBeGreaterThan(25);
    for (const route of apiRoutes) {
      expect(doc.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))).toEqual([]);
  });

  it.each(SEED_OPERATIONS)('%s %s lists the status codes %j', (method, path, codes) => {
    const operation = doc.paths[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    for (const code of codes) expect(Object.keys(operation!.responses), `${method} ${path} ${code}`).toContain(String(code));
  });

  it('gives every operation tags, a summary, and the csrf scheme on every mutating one but login', () => {
    for (const [path, method, operation] of operations()) {
      expect(operation.tags?.length, `${method} ${path} tags`).toBeGreaterThan(0);
      expect(operation.summary, `${method} ${path} summary`).toBeTruthy();
      if (['post', 'put', 'patch', 'delete'].includes(method) && path !== '/api/user/login') {
        // Each requirement that names a session also needs its CSRF token (keys of one requirement: all of them).
        const requirements = (operation.security ?? []).filter((r) => Object.keys(r).length > 0);
        expect(requirements.length, `${method} ${path} security`).toBeGreaterThan(0);
        for (const requirement of requirements) expect(requirement, `${method} ${path} security`).toMatchObject({ csrf: [] });
      }
    }
  });

  it('names every operation with an operationId of its own, for the methods of generated clients', () => {
    const ids = operations().map(([path, method, operation]) => {
      expect(operation.operationId, `${method} ${path} operationId`).toMatch(/^[a-z][A-Za-z]*$/);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/region/{regionId}/pin']!.get!.operationId).toBe('getRegionPin');
    expect(doc.paths['/api/baskets/{basketId}/withdraw']!.post!.operationId).toBe('withdrawBasketRequest');
  });

  it('references the session cookie scheme on every operation that needs a login, and only defined schemes', () => {
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'fs_session' });
    for (const [path, method, operation] of operations()) {
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes, `${method} ${path}`).toHaveProperty(scheme);
      }
      // Login's 401 means wrong credentials; everywhere else it means "log in first".
      if ('401' in operation.responses && path !== '/api/user/login') expect(operation.security, `${method} ${path}`).toEqual([expect.objectContaining({ session: [] })]);
    }
    const security = (method: string, path: string) => doc.paths[path]![method]!.security;
    expect(security('get', '/api/baskets/{basketId}')).toEqual([{ session: [] }]);
    expect(security('patch', '/api/baskets/{basketId}')).toEqual([{ session: [], csrf: [] }]);
    expect(security('patch', '/api/feature-toggles/{featureToggle}')).toEqual([{ session: [], csrf: [] }]);
    expect(security('patch', '/api/notifications/regions')).toEqual([{ session: [], csrf: [] }]);
    for (const [method, path] of [['get', '/api/petition'], ['get', '/api/feature-toggles'], ['get', '/api/uploads/{uuid}'], ['post', '/api/user/login']]) {
      expect(security(method!, path!), `${method} ${path}`).toBeUndefined();
    }
  });

  it('declares every error response as application/problem+json, the media type it is sent with', () => {
    let count = 0;
    for (const [path, method, operation] of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, { content?: Record<string, { schema: any }> }>)) {
        if (Number(status) < 400) continue;
        count += 1;
        expect(Object.keys(response.content ?? {}), `${method} ${path} ${status}`).toEqual(['application/problem+json']);
        // One extension member (RFC 9457 §3.2): the unlock page of a login refused by the account-wide limit.
        const extensions = path === '/api/user/login' && status === '429' ? ['unlock'] : [];
        const schema = response.content!['application/problem+json']!.schema;
        expect(schema, `${method} ${path} ${status}`).toEqual(extensions.length > 0 ? { $ref: '#/components/schemas/LoginThrottledProblem' } : { $ref: '#/components/schemas/Problem' });
        expect(Object.keys(namedSchema(schema.$ref).properties).sort())
          .toEqual(['code', 'detail', 'errors', 'status', 'title', 'type', ...extensions].sort());
      }
    }
    expect(count).toBeGreaterThan(100);
  });

  it('lists 413 and 415 for every POST, PUT, PATCH and DELETE, with a body or not, and 400 (an undeclared query parameter) everywhere', async () => {
    const withBody = operations().filter(([, , operation]) => operation.requestBody !== undefined);
    expect(withBody.map(([path, method]) => `${method} ${path}`)).toEqual(expect.arrayContaining(['patch /api/baskets/{basketId}', 'post /api/uploads', 'post /api/user/login']));
    for (const [path, method, operation] of operations()) {
      const mutating = ['post', 'put', 'patch', 'delete'].includes(method);
      expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(mutating ? ['400', '413', '415'] : ['400']));
      if (!mutating) expect(Object.keys(operation.responses), `${method} ${path}`).not.toContain('415');
    }
    // As the server answers them: the body-less logout with an XML body, a query parameter GET /api/feature-toggles does not declare.
    const member = await t.logIn(await makeUser(t.db));
    const xml = await t.call('POST', '/api/user/logout', member, '<a/>', { 'content-type': 'application/xml' });
    expect(xml.statusCode).toBe(415);
    expect((await t.app.inject({ url: '/api/feature-toggles?x=1' })).statusCode).toBe(400);
  });

  it('leaves a body open where the server ignores unknown fields, and closed where it refuses them', async () => {
    const bodyOf = (method: string, path: string) => (doc.paths[path]![method]!.requestBody as { content: Record<string, { schema: Record<string, unknown> }> })
      .content['application/json']!.schema;
    const contents = bodyOf('post', '/api/contents');
    expect(JSON.stringify(contents)).not.toContain('"additionalProperties":false');
    expect(contents.properties).toHaveProperty('title');
    expect(JSON.stringify(bodyOf('patch', '/api/notifications/regions'))).not.toContain('"additionalProperties":false');
    expect(bodyOf('patch', '/api/baskets/{basketId}')).toMatchObject({ additionalProperties: false, 'x-unknown-fields': 'refused' });
    // What the document says is what the server does: an unknown field of POST /api/contents is dropped.
    const orga = await t.logIn(await makeUser(t.db, { role: 'orga' }));
    const created = await t.call('POST', '/api/contents', orga, JSON.stringify({ name: 'open', title: 'Open', body: 'b', extra: 1 }), { 'content-type': 'application/json' });
    expect(created.statusCode).toBe(200);
  });

  it('names the headers of the responses that carry one, and the server sends them', async () => {
    const headersOf = (method: string, path: string, status: string) =>
      Object.keys((doc.paths[path]![method]!.responses[status] as { headers?: Record<string, unknown> }).headers ?? {});
    expect(headersOf('post', '/api/user/login', '200')).toEqual(['Set-Cookie']);
    for (const [method, path, status] of [['post', '/api/user/login', '429'], ['post', '/api/uploads', '429'], ['post', '/api/uploads', '503']]) {
      expect(headersOf(method!, path!, status!), `${method} ${path} ${status}`).toEqual(['Retry-After']);
    }
    expect(headersOf('post', '/api/baskets', '201')).toEqual(['Location']);
    // Every 401 names the challenge (RFC 9110 §15.5.2), and the server sends it.
    const unauthorized = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods!)
      .filter(([, operation]) => (operation as { responses?: Record<string, unknown> }).responses?.['401'] !== undefined).map(([method]) => [method, path] as const));
    expect(unauthorized.length).toBeGreaterThan(20);
    for (const [method, path] of unauthorized) expect(headersOf(method, path, '401'), `${method} ${path}`).toEqual(['WWW-Authenticate']);
    const loggedOut = await t.call('GET', '/api/user/current');
    expect(loggedOut.statusCode).toBe(401);
    expect(loggedOut.headers['www-authenticate']).toBe('Cookie realm="foodsharing", form-action="/api/user/login", cookie-name="fs_session"');
    expect(headersOf('get', '/api/uploads/{uuid}', '200')).toEqual(['ETag', 'Cache-Control']);
    expect(headersOf('get', '/api/uploads/{uuid}', '304')).toEqual(['ETag', 'Cache-Control']);
    expect(doc.paths['/api/uploads/{uuid}']!.get!.responses['304']).not.toHaveProperty('content');
    // The answers as sent (the 429s and 503s send Retry-After in their own suites: uploads-busy, login throttling).
    const member = await t.as('foodsharer');
    const login = await t.call('POST', '/api/user/login', null, { email: member.user.email, password: member.user.password });
    expect([login.headers['set-cookie']].flat().map((cookie) => cookie!.split('=')[0]).sort()).toEqual(['CSRF_TOKEN', 'fs_device', 'fs_session']);
    const basket = await t.call('POST', '/api/baskets', member, { description: 'Brot', contactTypes: [1], lat: 52.5, lon: 13.4, lifeTimeInDays: 3, weightInGrams: 500 });
    expect(basket.statusCode).toBe(201);
    expect(basket.headers.location).toBe(`/api/baskets/${basket.json().id}`);
    const upload = await t.call('POST', '/api/uploads', member, { filename: 'a.txt', body: Buffer.from('hello').toString('base64') });
    const served = await t.call('GET', new URL(upload.json().url, 'http://localhost').pathname);
    expect(served.statusCode).toBe(200);
    expect(served.headers.etag).toEqual(expect.any(String));
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const current = await t.call('GET', new URL(upload.json().url, 'http://localhost').pathname, null, undefined, { 'if-none-match': served.headers.etag as string });
    expect(current.statusCode).toBe(304);
    expect(current.headers.etag).toBe(served.headers.etag);
  });

  it('names the resources as component schemas, and refers to them wherever they are answered', () => {
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['Basket', 'ContentEntry', 'CurrentUser', 'Poll', 'Problem', 'Quiz', 'QuizSession',
      'RegionPin', 'UploadInfo', 'WallPost', 'WallPostAuthor']));
    for (const [name, schema] of Object.entries(schemas)) expect(schema.title, name).toBe(name);
    const answer = (method: string, path: string, status: string) =>
      (doc.paths[path]![method]!.responses[status] as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema;
    for (const [method, path, status] of [['get', '/api/baskets/{basketId}', '200'], ['post', '/api/baskets', '201'], ['patch', '/api/baskets/{basketId}', '200']]) {
      expect(answer(method!, path!, status!), `${method} ${path}`).toEqual({ $ref: '#/components/schemas/Basket' });
    }
    expect(answer('get', '/api/stores/{storeId}/posts', '200')).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/WallPost' } });
    expect(JSON.stringify(schemas.WallPost)).toContain('"$ref":"#/components/schemas/WallPostAuthor"');
    // Nothing titled is left inline: every titled schema moved to the components.
    expect(JSON.stringify(doc.paths)).not.toMatch(/"title":"[A-Z]/);
  });

  it('declares the served upload as binary content of its own media type, not JSON', () => {
    const ok = doc.paths['/api/uploads/{uuid}']!.get!.responses['200'] as { content: Record<string, { schema: unknown }> };
    expect(Object.keys(ok.content)).toEqual(['image/*', '*/*']);
    for (const media of Object.values(ok.content)) expect(media.schema).toEqual({ type: 'string', format: 'binary' });
  });
});

describe('/api/doc', () => {
  it('renders the document in Swagger UI', async () => {
    const page = await t.app.inject({ url: '/api/doc' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui');
    const json = await t.app.inject({ url: '/api/doc/json' });
    expect(json.json().paths).toEqual(doc.paths);
  });

  it.each(['/api/doc', '/api/doc/'])('links only assets that load from %s', async (address) => {
    const page = await t.app.inject({ url: address });
    const links = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `http://localhost${address}`).pathname);
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) {
      const asset = await t.app.inject({ url: link });
      expect(asset.statusCode, link).toBe(200);
    }
  });
});
