/**
 * OAuth test helpers: an app listening on the port its issuer names (client
 * libraries compare the issuer with the discovery URL), OAuth clients, and a
 * minimal cookie-keeping browser that logs in through the real /login form
 * and answers the consent form.
 */
import { createServer } from 'node:net';
import { createClient, type ClientInput } from '../../src/oauth/clients/clients.service.ts';
import { buildTestApp, type AppUnderTest, type TestApp, type TestAppOptions } from './app.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The app on real HTTP with PUBLIC_URL = its own address. */
export async function buildListeningApp(options: TestAppOptions = {}): Promise<TestApp & { issuer: string }> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ ...options, env: { PUBLIC_URL: issuer, ...options.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  t.baseUrl = issuer;
  return Object.assign(t, { issuer });
}

export const CALLBACK = 'http://127.0.0.1:3000/callback';

export async function makeClient(t: AppUnderTest, overrides: Partial<ClientInput> = {}): Promise<{ clientId: string; secret: string | null }> {
  return createClient(t.db, t.keys, {
    clientId: `client-${Math.random().toString(36).slice(2, 10)}`,
    name: 'Test App',
    confidential: true,
    redirectUris: [CALLBACK],
    scopes: ['openid', 'profile', 'email', 'regions'],
    grantTypes: ['authorization_code', 'refresh_token'],
    requiredRegions: [],
    ...overrides,
  });
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'", '&#34;': '"' };

export function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27|#34);/g, (m) => ENTITIES[m] ?? m);
}

/** Hidden and named inputs of the first form in a page. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[unescapeHtml(match[1]!)] = unescapeHtml(match[2]!);
  }
  return fields;
}

export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string, readonly acceptLanguage = 'de') {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { 'accept-language': this.acceptLanguage, ...init.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(new URL(url, this.baseUrl), { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects on this site; stops at a page or at a redirect leaving the site (the client callback). */
  async follow(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ response: Response; url: string; location?: string }> {
    let response = await this.request(url, init);
    let current = new URL(url, this.baseUrl).href;
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops += 1) {
      const location = new URL(response.headers.get('location')!, current).href;
      if (!location.startsWith(this.baseUrl)) return { response, url: current, location };
      current = location;
      response = await this.request(location);
    }
    return { response, url: current };
  }

  async logIn(loginPageUrl: string, user: { email: string; password: string }): Promise<{ response: Response; url: string; location?: string }> {
    const page = await this.request(loginPageUrl);
    const fields = formFields(await page.text());
    return this.follow('/login', { form: { ...fields, email: user.email, password: user.password } });
  }

  /**
   * Runs an authorization request to the client's callback: logs in when asked,
   * answers the consent page with `decision` (and `remember`). Returns the callback URL.
   */
  async authorize(authorizationUrl: string, user: { email: string; password: string }, decision: 'allow' | 'deny' = 'allow', remember = false): Promise<string> {
    let step = await this.follow(authorizationUrl);
    if (!step.location && step.url.includes('/login')) step = await this.logIn(step.url, user);
    if (!step.location) {
      const html = await step.response.text();
      if (!html.includes('name="decision"')) throw new Error(`expected the consent page, got ${step.response.status}: ${html.slice(0, 500)}`);
      step = await this.follow('/oauth/authorize', { form: { ...formFields(html), decision, ...(remember ? { remember: '1' } : {}) } });
    }
    if (!step.location) throw new Error(`expected a redirect to the client, got ${step.response.status} at ${step.url}`);
    return step.location;
  }
}

export interface CodeRequest {
  clientId: string;
  cookie: string;
  scope?: string;
  verifier?: string | null;
  nonce?: string;
  redirectUri?: string;
  /** Further authorization parameters (`dpop_jkt`, …). */
  extra?: Record<string, string>;
}

export const TEST_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

/** Runs the authorization endpoint through inject (consent answered "allow") and returns the code. */
export async function obtainCode(t: AppUnderTest, request: CodeRequest): Promise<string> {
  const { createHash } = await import('node:crypto');
  const verifier = request.verifier === undefined ? TEST_VERIFIER : request.verifier;
  const query = new URLSearchParams({
    response_type: 'code', client_id: request.clientId, redirect_uri: request.redirectUri ?? CALLBACK,
    scope: request.scope ?? 'openid profile email regions', state: 'st',
    ...(verifier === null ? {} : { code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' }),
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    ...request.extra,
  });
  let response = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, headers: { cookie: request.cookie } });
  if (response.statusCode === 200) {
    response = await t.app.inject({
      method: 'POST', url: '/oauth/authorize', headers: { cookie: request.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...formFields(response.body), decision: 'allow' }).toString(),
    });
  }
  const location = response.headers.location;
  if (response.statusCode !== 303 || typeof location !== 'string') throw new Error(`no code: ${response.statusCode} ${response.body.slice(0, 300)}`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

/** POST /oauth/token through inject. */
export function tokenRequest(t: AppUnderTest, form: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url: '/oauth/token', payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}
