/**
 * REQUIRE_PUSHED_AUTHORIZATION_REQUESTS=true (RFC 9126 §5): every client must
 * push; discovery says so; a pushed request still goes through.
 */
import { describe, expect, test } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { Browser, CALLBACK, makeClient } from '../helpers/oauth.ts';

const t = useTestApp({ listening: true, env: { REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: 'true' } });
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('REQUIRE_PUSHED_AUTHORIZATION_REQUESTS=true', () => {
  test('discovery advertises it', async () => {
    const document = await (await fetch(`${t.baseUrl}/.well-known/openid-configuration`)).json() as Record<string, unknown>;
    expect(document.require_pushed_authorization_requests).toBe(true);
    expect(document.pushed_authorization_request_endpoint).toBe(`${t.baseUrl}/oauth/par`);
  });

  test('a client not marked itself gets an error page without request_uri, and goes through when it pushes', async () => {
    const registered = await makeClient(t);
    const parameters = {
      response_type: 'code', redirect_uri: CALLBACK, scope: 'openid', state: 's', code_challenge: CHALLENGE, code_challenge_method: 'S256',
    };
    const browser = new Browser(t.baseUrl, 'en');
    const direct = await browser.request(`/oauth/authorize?${new URLSearchParams({ client_id: registered.clientId, ...parameters })}`);
    expect(direct.status).toBe(400);
    expect(direct.headers.get('location')).toBeNull();
    expect(await direct.text()).toContain('Pushed authorization request required');

    const pushed = await fetch(`${t.baseUrl}/oauth/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...parameters, client_id: registered.clientId, client_secret: registered.secret! }).toString(),
    });
    expect(pushed.status).toBe(201);
    const { request_uri } = await pushed.json() as { request_uri: string };
    const viaPar = await browser.request(`/oauth/authorize?${new URLSearchParams({ client_id: registered.clientId, request_uri })}`);
    expect(viaPar.status).toBe(303);
    expect(viaPar.headers.get('location')).toMatch(/^\/login\?return_to=/);
  });
});
