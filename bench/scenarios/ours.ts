/**
 * Our server as an OAuth target — a demo user logged in through
 * `POST /api/user/login`, consent given once on the real consent page with
 * "remember", codes minted through the real `GET /oauth/authorize` — and the
 * scenarios only it has: authorize with remembered consent, REST read, REST
 * write.
 */
import { check, CheckFailed } from '../checks.ts';
import type { Child } from '../child-process.ts';
import { runLoad } from '../load.ts';
import { CODE_CHALLENGE, discover, NONCE, STATE, type LoadOptions, type OAuthTarget } from './oauth.ts';
import { form, FORM, send, type Scenario } from './scenario.ts';

export const DEMO = {
  clientId: 'demo-app',
  clientSecret: 'demo-app-secret-for-local-testing-only',
  redirectUri: 'http://127.0.0.1:3000/callback',
  email: 'foodsaver@example.org',
  password: 'demo-password',
  scope: 'openid profile email',
};

export interface OurSession {
  /** Cookie header: session and CSRF cookies. */
  cookie: string;
  csrfToken: string;
  userId: number;
  regionIds: number[];
  authorizePath: string;
}

function unescapeHtml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

async function logIn(server: Child): Promise<{ cookie: string; csrfToken: string; userId: number; regionIds: number[] }> {
  const r = await send(`${server.url}/api/user/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: DEMO.email, password: DEMO.password, rememberMe: true }),
  });
  check(r.status === 200, `login of ${DEMO.email} answered ${r.status}: ${r.text.slice(0, 300)} (is the demo dataset loaded?)`);
  const cookie = r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  check(/fs_session=/.test(cookie), 'login set no session cookie');
  const user = JSON.parse(r.text) as { id: number; csrfToken: string; regionIds: number[] };
  return { cookie, csrfToken: user.csrfToken, userId: user.id, regionIds: user.regionIds };
}

function codeFrom(location: string | null | undefined, issuer: string): string {
  check(location, 'authorize answered without a Location');
  const url = new URL(location, 'http://invalid/');
  const error = url.searchParams.get('error');
  check(!error, `authorize redirected with error=${error}: ${url.searchParams.get('error_description')}`);
  check(url.searchParams.get('state') === STATE, 'authorize response lost the state');
  check(url.searchParams.get('iss') === issuer, `authorize response iss is ${url.searchParams.get('iss')}, expected ${issuer}`);
  const code = url.searchParams.get('code');
  check(code, `authorize redirected without a code: ${location}`);
  return code;
}

/** A client of ours the bench uses: the demo app, or the ES256 client `bench run` registers through the CLI. */
export interface OurClient { clientId: string; clientSecret: string; alg: 'RS256' | 'ES256' }

export const DEMO_CLIENT: OurClient = { clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, alg: 'RS256' };

/** Logs in, gives the remembered consent to the demo app through the consent form, and returns the target. */
export async function ourTarget(server: Child, o: LoadOptions): Promise<{ target: OAuthTarget; session: OurSession }> {
  const user = await logIn(server);
  return clientTarget(server, user, DEMO_CLIENT, o);
}

/** The remembered consent of the logged-in demo user for `client`, and the client as a target. */
export async function clientTarget(
  server: Child, user: Omit<OurSession, 'authorizePath'>, client: OurClient, o: LoadOptions,
): Promise<{ target: OAuthTarget; session: OurSession }> {
  const endpoints = await discover(server.url);
  const authorizePath = `${endpoints.authorizePath}?${new URLSearchParams({
    response_type: 'code', client_id: client.clientId, redirect_uri: DEMO.redirectUri, scope: DEMO.scope,
    state: STATE, nonce: NONCE, code_challenge: CODE_CHALLENGE, code_challenge_method: 'S256',
  }).toString()}`;
  const page = await send(server.url + authorizePath, { headers: { cookie: user.cookie } });
  check(page.status === 200, `the first authorize should show the consent page, answered ${page.status} ${page.headers.get('location') ?? ''}`);
  const fields: Record<string, string> = {};
  for (const m of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
  check(fields.csrf_token, 'the consent page has no csrf_token field');
  const decision = await send(server.url + endpoints.authorizePath, {
    method: 'POST', headers: { cookie: user.cookie, 'content-type': FORM },
    body: form({ ...fields, remember: '1', decision: 'allow' }),
  });
  check(decision.status === 302 || decision.status === 303, `the consent form answered ${decision.status}: ${decision.text.slice(0, 200)}`);
  codeFrom(decision.headers.get('location'), endpoints.issuer);
  const again = await send(server.url + authorizePath, { headers: { cookie: user.cookie } });
  check(again.status === 302 || again.status === 303, `with the remembered consent authorize answered ${again.status}, not a redirect`);
  codeFrom(again.headers.get('location'), endpoints.issuer);

  const session: OurSession = { ...user, authorizePath };
  const target: OAuthTarget = {
    prefix: '', child: server,
    issuer: { issuer: endpoints.issuer, jwksUri: endpoints.jwksUri, clientId: client.clientId, accessTokenIsJwt: true, requireAtHash: true, alg: client.alg },
    clientSecret: client.clientSecret, redirectUri: DEMO.redirectUri,
    tokenPath: endpoints.tokenPath, userinfoPath: endpoints.userinfoPath,
    discoveryPath: '/.well-known/openid-configuration', jwksPath: new URL(endpoints.jwksUri).pathname,
    email: DEMO.email,
    mintCodes: async (count) => {
      const codes: string[] = [];
      const result = await runLoad(server.pid, {
        url: server.url, connections: Math.min(o.connections, count), amount: count, path: authorizePath,
        headers: { cookie: user.cookie }, expectStatus: 303,
        onResponse: (_status, _body, headers) => {
          const code = /[?&]code=([^&]+)/.exec(headers.location ?? '');
          if (code) codes.push(decodeURIComponent(code[1]!));
        },
      });
      if (codes.length < count) {
        throw new CheckFailed(`minting ${count} codes through /oauth/authorize gave ${codes.length} (statuses ${JSON.stringify(result.statuses)})`);
      }
      return codes;
    },
  };
  return { target, session };
}

export function authorizeScenario(t: OAuthTarget, s: OurSession, o: LoadOptions): Scenario {
  return {
    key: 'authorize', name: 'authorize (remembered consent)', unit: 'codes/s', pid: t.child.pid, notes: [],
    async check() {
      const r = await send(t.child.url + s.authorizePath, { headers: { cookie: s.cookie } });
      check(r.status === 303 || r.status === 302, `authorize answered ${r.status}, not a redirect`);
      codeFrom(r.headers.get('location'), t.issuer.issuer);
    },
    run: (duration) => runLoad(t.child.pid, {
      url: t.child.url, connections: o.connections, duration, path: s.authorizePath, headers: { cookie: s.cookie }, expectStatus: 303,
    }),
  };
}

export async function findPinRegion(server: Child, s: OurSession): Promise<number> {
  for (const id of s.regionIds) {
    const r = await send(`${server.url}/api/region/${id}/pin`, { headers: { cookie: s.cookie } });
    if (r.status === 200) return id;
  }
  throw new CheckFailed(`no region of ${DEMO.email} (${s.regionIds.join(', ')}) has a pin in the demo data`);
}

export function restReadScenario(server: Child, s: OurSession, o: LoadOptions): Scenario {
  let path = '';
  return {
    key: 'rest-read', name: 'REST read', unit: 'req/s', pid: server.pid, notes: [],
    async check() {
      path = `/api/region/${await findPinRegion(server, s)}/pin`;
      const r = await send(server.url + path, { headers: { cookie: s.cookie } });
      check(r.status === 200, `GET ${path} answered ${r.status}`);
      const pin = JSON.parse(r.text) as Record<string, unknown>;
      check(typeof pin.lat === 'number' && typeof pin.lon === 'number', `GET ${path}: no lat/lon in ${r.text.slice(0, 200)}`);
      this.notes.push(`REST read: GET ${path} as ${DEMO.email}`);
    },
    run: (duration) => runLoad(server.pid, { url: server.url, connections: o.connections, duration, path, headers: { cookie: s.cookie } }),
  };
}

export function restWriteScenario(server: Child, s: OurSession, o: LoadOptions): Scenario {
  const path = '/api/notifications/regions';
  const body = JSON.stringify(s.regionIds.map((id, i) => ({ id, notifyByEmailAboutNewThreads: i % 2 === 0 })));
  const headers = { cookie: s.cookie, 'x-csrf-token': s.csrfToken, 'content-type': 'application/json' };
  return {
    key: 'rest-write', name: 'REST write', unit: 'req/s', pid: server.pid, notes: [],
    async check() {
      check(s.regionIds.length > 0, `${DEMO.email} is in no region`);
      const r = await send(server.url + path, { method: 'PATCH', headers, body });
      check(r.status === 200, `PATCH ${path} answered ${r.status}: ${r.text.slice(0, 300)}`);
      check(r.text.trim() === '{}', `PATCH ${path} answered ${r.text.slice(0, 200)}, expected {}`);
      const forged = await send(server.url + path, { method: 'PATCH', headers: { ...headers, 'x-csrf-token': 'wrong' }, body });
      check(forged.status === 403, `PATCH ${path} with a wrong CSRF token answered ${forged.status}, expected 403`);
      this.notes.push(`REST write: PATCH ${path} with ${s.regionIds.length} regions, session cookie and X-CSRF-Token`);
    },
    run: (duration) => runLoad(server.pid, { url: server.url, connections: o.connections, duration, method: 'PATCH', path, headers, body }),
  };
}
