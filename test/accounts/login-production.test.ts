/** In production (SPEC §3, §4): Secure cookies and HSTS; outside production neither. */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient } from '../helpers/oauth.ts';
import { enrol, passwordStep } from '../helpers/one-time-codes.ts';

const PRODUCTION = {
  NODE_ENV: 'production', LOG_LEVEL: 'silent', PUBLIC_URL: 'https://id.example.org',
  // Required by the configuration; the test app uses its own test database instead.
  DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused', MAIL: 'off',
};

const production = useTestApp({ env: PRODUCTION });
const development = useTestApp();
let user: TestUser;
beforeAll(async () => {
  user = await makeUser(production.db);
});

describe('production', () => {
  it('marks the session and CSRF_TOKEN cookies Secure at login, and keeps HttpOnly on the session only', async () => {
    expect(production.config.isProduction).toBe(true);
    const response = await production.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password } });
    expect(response.statusCode).toBe(200);
    const session = response.cookies.find((c) => c.name === '__Host-fs_session');
    const csrf = response.cookies.find((c) => c.name === 'CSRF_TOKEN');
    // RFC 6265bis §4.1.3.2: Secure, Path=/, no Domain.
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session).not.toHaveProperty('domain');
    expect(response.cookies.find((c) => c.name === '__Host-fs_device')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(response.cookies.map((c) => c.name).filter((name) => name === 'fs_session' || name === 'fs_device')).toEqual([]);
    expect(csrf).toMatchObject({ secure: true, sameSite: 'Lax', path: '/' });
    expect(csrf!.httpOnly).toBeFalsy();

    const cookie = `__Host-fs_session=${session!.value}`;
    const logout = await production.app.inject({ method: 'POST', url: '/api/user/logout', headers: { cookie, 'x-csrf-token': csrf!.value } });
    expect(logout.statusCode).toBe(204);
    for (const name of ['__Host-fs_session', 'CSRF_TOKEN']) expect(logout.cookies.find((c) => c.name === name)).toMatchObject({ value: '', secure: true });
  });

  it('reads the session only from its __Host- cookie: one planted under the plain name (a sibling subdomain\'s) signs nobody in', async () => {
    const attacker = await makeUser(production.db);
    const login = await production.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: attacker.email, password: attacker.password } });
    const id = login.cookies.find((c) => c.name === '__Host-fs_session')!.value;
    for (const cookie of [`fs_session=${id}`, `fs_session=${id}; __Host-fs_session=unknown`]) {
      const current = await production.app.inject({ url: '/api/user/current', headers: { cookie } });
      expect(current.statusCode, cookie).toBe(401);
      expect(current.headers['www-authenticate']).toBe('Cookie realm="foodsharing", form-action="/api/user/login", cookie-name="__Host-fs_session"');
      const page = await production.app.inject({ url: '/settings/security', headers: { cookie } });
      expect(page.statusCode, cookie).toBe(303);
      expect(page.headers.location).toMatch(/^\/login\?return_to=/);
    }
    const own = await production.app.inject({ url: '/api/user/current', headers: { cookie: `__Host-fs_session=${id}` } });
    expect(own.statusCode).toBe(200);
    expect(own.json().email).toBe(attacker.email);
  });

  it('names the production cookie in its OpenAPI document: the session scheme, and a 401 challenge that matches its pattern', async () => {
    const doc = (await production.app.inject({ url: '/api/openapi.json' })).json();
    expect(doc.components.securitySchemes.session).toMatchObject({ in: 'cookie', name: '__Host-fs_session' });
    const declared = doc.paths['/api/user/current'].get.responses['401'].headers['WWW-Authenticate'].schema ?? doc.paths['/api/user/current'].get.responses['401'].headers['WWW-Authenticate'];
    const pattern = new RegExp(declared.pattern as string);
    const answer = await production.app.inject({ url: '/api/user/current' });
    expect(answer.headers['www-authenticate']).toMatch(pattern);
    expect(answer.headers['www-authenticate']).toContain('cookie-name="__Host-fs_session"');
  });

  it('expires, at login and logout, the plain-named cookies a browser kept from before the __Host- prefix; other answers set none', async () => {
    const old = 'fs_session=old; fs_device=old; fs_pending_login=old';
    const login = await production.app.inject({ method: 'POST', url: '/api/user/login', headers: { cookie: old }, payload: { email: user.email, password: user.password } });
    expect(login.statusCode).toBe(200);
    const expiredIn = (answer: typeof login) => Object.fromEntries(answer.cookies.filter((c) => c.value === '').map((c) => [c.name, c]));
    const expired = expiredIn(login);
    expect(Object.keys(expired).sort()).toEqual(['fs_device', 'fs_pending_login', 'fs_session']);
    for (const [name, path] of [['fs_session', '/'], ['fs_device', '/'], ['fs_pending_login', '/login/second-factor']]) {
      expect(expired[name!], name).toMatchObject({ path, secure: true, httpOnly: true });
      expect(expired[name!]!.expires!.getTime(), name).toBeLessThanOrEqual(Date.now());
    }
    const session = login.cookies.find((c) => c.name === '__Host-fs_session')!.value;
    const csrf = login.cookies.find((c) => c.name === 'CSRF_TOKEN')!.value;
    // A cacheable answer carries no Set-Cookie for them.
    for (const url of ['/.well-known/jwks.json', '/api/user/current']) {
      const answer = await production.app.inject({ url, headers: { cookie: `${old}; __Host-fs_session=${session}` } });
      expect(answer.cookies, url).toEqual([]);
    }
    const logout = await production.app.inject({ method: 'POST', url: '/api/user/logout', headers: { cookie: `${old}; __Host-fs_session=${session}`, 'x-csrf-token': csrf } });
    expect(logout.statusCode).toBe(204);
    expect(Object.keys(expiredIn(logout)).sort()).toEqual(['CSRF_TOKEN', '__Host-fs_session', 'fs_device', 'fs_pending_login', 'fs_session']);
  });

  it('keeps a pending login (before the second factor) in a __Host- cookie for the whole site', async () => {
    const member = await makeUser(production.db);
    await enrol(production.app, await production.logIn(member), new Date());
    const step = await passwordStep(production.app, member);
    expect(step.response.statusCode).toBe(303);
    const pending = step.response.cookies.find((c) => c.name === '__Host-fs_pending_login');
    expect(pending).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(step.response.cookies.find((c) => c.name === 'fs_pending_login')).toBeUndefined();
    const page = await production.app.inject({ url: '/login/second-factor', headers: { cookie: step.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('autocomplete="one-time-code"');
    // Under the plain name it is no pending login: the step's page sends the browser back to the login.
    const planted = await production.app.inject({ url: '/login/second-factor', headers: { cookie: `fs_pending_login=${pending!.value}` } });
    expect(planted.statusCode).toBe(303);
  });

  it('keeps the login form\'s token in a __Host- cookie, which a sibling subdomain cannot plant: only its value logs in', async () => {
    const page = await production.app.inject({ url: '/login' });
    expect(page.statusCode).toBe(200);
    const cookie = page.cookies.find((c) => c.name === '__Host-CSRF_TOKEN');
    // RFC 6265bis §4.1.3.2: Secure, Path=/, no Domain.
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie).not.toHaveProperty('domain');
    expect(page.cookies.find((c) => c.name === 'CSRF_TOKEN')).toBeUndefined();
    const token = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    expect(token).toBe(cookie!.value);
    const login = (cookieHeader: string, csrf: string) => production.app.inject({
      method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader },
      payload: new URLSearchParams({ csrf_token: csrf, email: user.email, password: user.password }).toString(),
    });
    // A value planted under the unprefixed name (what a sibling subdomain can set) is no token here.
    const planted = 'AttackerChosenValueAttackerChosenValue01234';
    expect((await login(`CSRF_TOKEN=${planted}`, planted)).statusCode).toBe(403);
    expect((await login(`__Host-CSRF_TOKEN=${token}`, token)).statusCode).toBe(303);
  });

  it('keeps the device codes a browser confirmed in a __Host- cookie: a continuation planted under the plain name opens nothing', async () => {
    const { clientId } = await makeClient(production, { confidential: false, grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'] });
    const started = await production.app.inject({
      method: 'POST', url: '/oauth/device_authorization', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `client_id=${clientId}&scope=openid`,
    });
    const entry = await production.app.inject({ url: '/device' });
    const csrf = entry.cookies.find((c) => c.name === '__Host-CSRF_TOKEN')!.value;
    const confirmed = await production.app.inject({
      method: 'POST', url: '/device', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `__Host-CSRF_TOKEN=${csrf}` },
      payload: new URLSearchParams({ csrf_token: csrf, user_code: started.json().user_code, step: 'confirm' }).toString(),
    });
    expect(confirmed.statusCode).toBe(303);
    const cookie = confirmed.cookies.find((c) => c.name === '__Host-fs_device_confirmed');
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 600 });
    expect(cookie).not.toHaveProperty('domain');
    const approve = (cookieHeader: string) => production.app.inject({ url: confirmed.headers.location as string, headers: { cookie: cookieHeader } });
    expect((await approve(`fs_device_confirmed=${cookie!.value}`)).statusCode).toBe(403);
    const own = await approve(`__Host-fs_device_confirmed=${cookie!.value}`);
    expect(own.statusCode).toBe(303);
    expect(own.headers.location).toMatch(/^\/login\?return_to=/);
  });

  it('sends Strict-Transport-Security on pages and the API', async () => {
    for (const url of ['/login', '/health', '/api/user/current']) {
      const response = await production.app.inject({ url });
      expect(response.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
    }
  });
});

describe('outside production', () => {
  it('sends neither Secure cookies nor HSTS (plain http://localhost must work)', async () => {
    const page = await development.app.inject({ url: '/login' });
    expect(page.headers['strict-transport-security']).toBeUndefined();
    expect(page.cookies.find((c) => c.name === 'CSRF_TOKEN')?.secure).toBeFalsy();
  });
});
