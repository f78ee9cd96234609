import { beforeAll, describe, expect, it } from 'vitest';
import { toLocation } from '../../src/http/location.ts';
import { makeUser, TEST_PASSWORD, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { logInAs } from '../helpers/session.ts';
import { makeClient } from '../helpers/oauth.ts';

const t = useTestApp();
let user: TestUser;
beforeAll(async () => {
  user = await makeUser(t.db);
});

async function logInThroughForm(returnTo: string) {
  const page = await t.app.inject({ url: '/login' });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return t.app.inject({
    method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    payload: new URLSearchParams({ email: user.email, password: TEST_PASSWORD, csrf_token: csrf, return_to: returnTo }).toString(),
  });
}

describe('Location headers are ASCII URI references', () => {
  it('login with a return_to above U+00FF redirects to it percent-encoded as UTF-8', async () => {
    const response = await logInThroughForm('/oauth/authorize?state=€→😀');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/oauth/authorize?state=%E2%82%AC%E2%86%92%F0%9F%98%80');
    expect(response.body).not.toContain('ERR_INVALID_CHAR');
  });

  it('login with a Latin-1 return_to redirects percent-encoded, not with raw bytes', async () => {
    const response = await logInThroughForm('/grüße?x=ä ö');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/gr%C3%BC%C3%9Fe?x=%C3%A4%20%C3%B6');
  });

  it('login keeps an already-encoded return_to as it is', async () => {
    const response = await logInThroughForm('/oauth/authorize?state=%E2%82%AC&a=b%2Fc');
    expect(response.headers.location).toBe('/oauth/authorize?state=%E2%82%AC&a=b%2Fc');
  });

  it('an authorization error redirect to a registered non-ASCII redirect URI is percent-encoded', async () => {
    const redirectUri = 'https://app.example.org/rückruf';
    const { clientId } = await makeClient(t, { redirectUris: [redirectUri] });
    const session = await logInAs(t.app, user);
    const query = new URLSearchParams({ response_type: 'token', client_id: clientId, redirect_uri: redirectUri, scope: 'openid', state: 'ß' });
    const response = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: session.cookie } });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toMatch(/^https:\/\/app\.example\.org\/r%C3%BCckruf\?error=unsupported_response_type&/);
    expect(response.headers.location).toContain('state=%C3%9F');
  });

  it('toLocation encodes a stray percent sign and a lone surrogate without throwing', () => {
    expect(toLocation('/a%zz%4')).toBe('/a%25zz%254');
    expect(toLocation('/x\uD800y')).toBe('/x%EF%BF%BDy');
    expect(toLocation('/ok?a=1&b=%20#frag')).toBe('/ok?a=1&b=%20#frag');
  });
});
