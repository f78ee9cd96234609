/**
 * Real client libraries (openid-client v6 and oauth4webapi)
 * drive the whole flow over real HTTP, unmodified: discovery → authorize
 * (login form, consent form) → callback → code exchange with PKCE → ID token
 * validated by the library (signature via the JWKS) → userinfo → refresh.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { beforeAll, describe, expect, test } from 'vitest';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { Browser, CALLBACK, makeClient } from '../helpers/oauth.ts';

const t = useTestApp({ listening: true });
let user: TestUser;
let regionId: number;

beforeAll(async () => {
  regionId = await makeRegion(t.db);
  user = await makeUser(t.db, { firstName: 'Frieda', lastName: 'Teiler', regionIds: [regionId], ambassadorOf: [regionId] });
});

async function openidClientFlow(authMethod: 'post' | 'basic' | 'none') {
  const registered = await makeClient(t, { confidential: authMethod !== 'none' });
  const auth = authMethod === 'post' ? client.ClientSecretPost(registered.secret!)
    : authMethod === 'basic' ? client.ClientSecretBasic(registered.secret!) : client.None();
  const config = await client.discovery(new URL(t.baseUrl), registered.clientId, undefined, auth, { execute: [client.allowInsecureRequests] });
  client.enableNonRepudiationChecks(config);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK, scope: 'openid profile email regions', state, nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const callback = await new Browser(t.baseUrl).authorize(url.href, user);
  const tokens = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  return { registered, config, tokens };
}

describe('openid-client v6', () => {
  for (const method of ['post', 'basic', 'none'] as const) {
    test(`full flow with client authentication ${method}`, async () => {
      const { registered, config, tokens } = await openidClientFlow(method);
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.scope).toBe('openid profile email regions');
      const claims = tokens.claims()!;
      expect(claims.iss).toBe(t.baseUrl);
      expect(claims.aud).toBe(registered.clientId);
      expect(claims.sub).toBe(String(user.id));
      expect(typeof claims.auth_time).toBe('number');
      // A password login: RFC 8176's `pwd`, the password level.
      expect(claims.amr).toEqual(['pwd']);
      expect(claims.acr).toBe('urn:foodsharing:acr:password');

      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      expect(info).toEqual({
        sub: String(user.id), preferred_username: 'Frieda', name: 'Frieda Teiler', given_name: 'Frieda', family_name: 'Teiler',
        locale: 'de-DE', email: user.email, email_verified: true, region_ids: [String(regionId)], region_ambassador: [String(regionId)],
      });

      // The ID token verifies against the published JWKS, independently of the library.
      const jwks = createRemoteJWKSet(new URL(`${t.baseUrl}/.well-known/jwks.json`));
      await jwtVerify(tokens.id_token!, jwks, { issuer: t.baseUrl, audience: registered.clientId });

      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect(refreshed.claims()!.sub).toBe(claims.sub);
      expect(refreshed.claims()!.auth_time).toBe(claims.auth_time);
      expect(refreshed.claims()!.amr).toEqual(['pwd']);
      const again = await client.fetchUserInfo(config, refreshed.access_token, claims.sub);
      expect(again.sub).toBe(String(user.id));
    });
  }
});

describe('oauth4webapi', () => {
  for (const method of ['post', 'basic', 'none'] as const) {
    test(`full flow with client authentication ${method}`, async () => {
      const registered = await makeClient(t, { confidential: method !== 'none' });
      const options = { [oauth.allowInsecureRequests]: true };
      const issuer = new URL(t.baseUrl);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
      const c: oauth.Client = { client_id: registered.clientId };
      const auth = method === 'post' ? oauth.ClientSecretPost(registered.secret!)
        : method === 'basic' ? oauth.ClientSecretBasic(registered.secret!) : oauth.None();
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: registered.clientId, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email', state, nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      }).toString();
      const callback = await new Browser(t.baseUrl).authorize(url.href, user);
      const params = oauth.validateAuthResponse(as, c, new URL(callback), state);
      const response = await oauth.authorizationCodeGrantRequest(as, c, auth, params, CALLBACK, verifier, options);
      const result = await oauth.processAuthorizationCodeResponse(as, c, response, { expectedNonce: nonce, requireIdToken: true });
      await oauth.validateApplicationLevelSignature(as, response, options);
      const claims = oauth.getValidatedIdTokenClaims(result)!;
      expect(claims.sub).toBe(String(user.id));
      expect(claims.nonce).toBe(nonce);

      const info = await oauth.processUserInfoResponse(as, c, claims.sub, await oauth.userInfoRequest(as, c, result.access_token, options));
      expect(info).toEqual({ sub: String(user.id), preferred_username: 'Frieda', email: user.email, email_verified: true });

      const refreshResponse = await oauth.refreshTokenGrantRequest(as, c, auth, result.refresh_token!, options);
      const refreshed = await oauth.processRefreshTokenResponse(as, c, refreshResponse);
      expect(refreshed.access_token).toBeTypeOf('string');
      expect(oauth.getValidatedIdTokenClaims(refreshed)!.auth_time).toBe(claims.auth_time);

      const revokeResponse = await oauth.revocationRequest(as, c, auth, refreshed.refresh_token!, options);
      await oauth.processRevocationResponse(revokeResponse);
      const afterRevoke = await oauth.userInfoRequest(as, c, refreshed.access_token, options);
      expect(afterRevoke.status).toBe(401);
    });
  }
});
