/**
 * RP-Initiated Logout 1.0 with a real client library (openid-client v6's
 * `buildEndSessionUrl`) over real HTTP: logout with the client's own ID token
 * ends the session at once and returns to the registered URI with `state`;
 * the grants of that sign-in die with it; `prompt=none` then answers
 * `login_required`. An untrusted hint or client id shows an error page: no
 * redirect, no logout; a redirect URI that cannot be validated is dropped
 * (the member is asked and ends on our own logged-out page).
 */
import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { Browser, buildListeningApp, CALLBACK, formFields, makeClient } from '../helpers/oauth.ts';
import type { TestApp } from '../helpers/app.ts';

const BYE = 'http://127.0.0.1:3000/bye';

let t: TestApp & { issuer: string };
let user: TestUser;
let registered: { clientId: string; secret: string | null };
let config: client.Configuration;

beforeAll(async () => {
  t = await buildListeningApp();
  user = await makeUser(t.db, { firstName: 'Lotte', lastName: 'Linse' });
  registered = await makeClient(t, { postLogoutRedirectUris: [BYE] });
  config = await client.discovery(new URL(t.issuer), registered.clientId, undefined, client.ClientSecretPost(registered.secret!), { execute: [client.allowInsecureRequests] });
});
afterAll(() => t.close());

/** A browser signed in to the client through the real pages: its ID and refresh tokens. */
async function signIn(member: TestUser = user, browser = new Browser(t.issuer)) {
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK, scope: 'openid profile', state: 's', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const callback = await browser.authorize(url.href, member);
  const tokens = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: 's', idTokenExpected: true });
  return { browser, idToken: tokens.id_token!, refreshToken: tokens.refresh_token!, sid: tokens.claims()!.sid as string };
}

const sessionExists = async (sid: string) => (await t.db.selectFrom('sessions').select('sid').where('sid', '=', sid).executeTakeFirst()) !== undefined;
const refreshWorks = (refreshToken: string) => client.refreshTokenGrant(config, refreshToken).then(() => true, () => false);

/** An error page, no redirect, and the session still there. */
async function expectRefused(browser: Browser, url: string, sid: string, message: string) {
  const { response, location } = await browser.follow(url);
  expect(location).toBeUndefined();
  expect(response.status).toBe(400);
  const html = await response.text();
  expect(html).toContain(`<p class="error" role="alert" id="oauth-error-message">${message}</p>`);
  expect(html).toContain('Die App hat eine ungültige Abmeldeanfrage geschickt; es wurde nichts geändert.');
  expect(await sessionExists(sid)).toBe(true);
}

describe('discovery', () => {
  test('publishes the end_session_endpoint, no front-channel logout, and sid among the claims', () => {
    const metadata = config.serverMetadata();
    expect(metadata.end_session_endpoint).toBe(`${t.issuer}/oauth/logout`);
    expect(metadata.frontchannel_logout_supported).toBe(false);
    expect(metadata.claims_supported).toContain('sid');
  });
});

describe('RP-initiated logout with openid-client', () => {
  test('the client\'s own ID token: logged out at once, back with state; the sign-in\'s tokens are revoked; prompt=none answers login_required', async () => {
    const { browser, idToken, refreshToken, sid } = await signIn();
    const other = await signIn(user, new Browser(t.issuer));
    const url = client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'bye-state' });
    const { location } = await browser.follow(url.href);
    expect(location).toBe(`${BYE}?state=bye-state`);
    expect(await sessionExists(sid)).toBe(false);
    expect(browser.cookies.has('fs_session')).toBe(false);
    expect(await refreshWorks(refreshToken)).toBe(false);
    expect(await client.tokenIntrospection(config, refreshToken)).toEqual({ active: false });
    // Another session of the same member, and its sign-in, are not touched.
    expect(await sessionExists(other.sid)).toBe(true);
    expect(await refreshWorks(other.refreshToken)).toBe(true);

    const silent = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK, scope: 'openid', prompt: 'none', state: 'p', code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256',
    });
    const answer = new URL((await browser.follow(silent.href)).location!);
    expect(answer.searchParams.get('error')).toBe('login_required');
    expect(answer.searchParams.get('state')).toBe('p');
  });

  test('without post_logout_redirect_uri: the logged-out page', async () => {
    const { browser, idToken, sid } = await signIn();
    const { response, location } = await browser.follow(client.buildEndSessionUrl(config, { id_token_hint: idToken }).href);
    expect(location).toBeUndefined();
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<p role="status">Du bist jetzt abgemeldet.</p>');
    expect(html).toContain('<a href="/login">');
    expect(await sessionExists(sid)).toBe(false);
  });

  test('without state: back to the registered URI as it is, no empty query', async () => {
    const { browser, idToken, sid } = await signIn();
    const { location } = await browser.follow(client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: BYE }).href);
    expect(location).toBe(BYE);
    expect(await sessionExists(sid)).toBe(false);
    const anonymous = await new Browser(t.issuer).follow(client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: BYE }).href);
    expect(anonymous.location).toBe(BYE);
  });

  test('no session: straight back to the client with state', async () => {
    const { idToken } = await signIn();
    const { location } = await new Browser(t.issuer).follow(client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'x' }).href);
    expect(location).toBe(`${BYE}?state=x`);
  });

  test('a client\'s cross-site POST (no session cookie) becomes the same request as a GET', async () => {
    const { idToken } = await signIn();
    const form = { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'posted', client_id: registered.clientId };
    const response = await new Browser(t.issuer).request('/oauth/logout', { form });
    expect(response.status).toBe(303);
    expect(Object.fromEntries(new URL(response.headers.get('location')!, t.issuer).searchParams)).toEqual(form);
  });
});

describe('the negative cases of the RP-initiated logout test plan: an error page, no redirect, no logout', () => {
  test('an id_token_hint signed by another key, or with alg none', async () => {
    const { browser, idToken, sid } = await signIn();
    const { kid } = decodeProtectedHeader(idToken);
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8'));
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: kid! })
      .sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${idToken.split('.')[1]}.`;
    for (const hint of [foreign, unsigned]) {
      await expectRefused(browser, client.buildEndSessionUrl(config, { id_token_hint: hint, post_logout_redirect_uri: BYE, state: 's' }).href, sid, 'Der id_token_hint ist ungültig.');
    }
  });

  test('an unknown client_id, or one that is not the hint\'s audience', async () => {
    const { browser, idToken, sid } = await signIn();
    await expectRefused(browser, `/oauth/logout?client_id=nobody&post_logout_redirect_uri=${encodeURIComponent(BYE)}`, sid, 'Diese App ist hier nicht registriert (ungültige client_id).');
    const another = await makeClient(t, { postLogoutRedirectUris: [BYE] });
    await expectRefused(browser, `/oauth/logout?client_id=${another.clientId}&id_token_hint=${idToken}`, sid, 'Die client_id passt nicht zum id_token_hint.');
  });

  test('a hint for another member: nothing ends without the member\'s confirmation', async () => {
    const { browser, sid } = await signIn();
    const stranger = await signIn(await makeUser(t.db));
    const { response, location } = await browser.follow(client.buildEndSessionUrl(config, { id_token_hint: stranger.idToken, post_logout_redirect_uri: BYE, state: 's' }).href);
    expect(location).toBeUndefined();
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Test App möchte dich abmelden. Möchtest du dich auch bei Foodsharing abmelden?');
    expect(await sessionExists(sid)).toBe(true);
  });
});

describe('the confirmation page', () => {
  test('asked without a hint: a CSRF-protected form; a forged answer changes nothing; the member\'s answer logs out and returns with state', async () => {
    const { browser, refreshToken, sid } = await signIn();
    const page = await browser.follow(`/oauth/logout?client_id=${registered.clientId}&post_logout_redirect_uri=${encodeURIComponent(BYE)}&state=confirmed`);
    expect(page.response.status).toBe(200);
    const html = await page.response.text();
    expect(html).toContain('<form method="post" action="/oauth/logout">');
    expect(html).toContain('Danach geht es weiter zu http://127.0.0.1:3000.');
    const fields = formFields(html);
    expect(fields).toMatchObject({ client_id: registered.clientId, post_logout_redirect_uri: BYE, state: 'confirmed', csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });

    const forged = await browser.request('/oauth/logout', { form: { ...fields, csrf_token: 'forged', logout: 'yes' } });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('Das Formular ist abgelaufen. Bitte bestätige die Abmeldung noch einmal.');
    expect(await sessionExists(sid)).toBe(true);

    const answered = await browser.follow('/oauth/logout', { form: { ...fields, logout: 'yes' } });
    expect(answered.location).toBe(`${BYE}?state=confirmed`);
    expect(await sessionExists(sid)).toBe(false);
    expect(await refreshWorks(refreshToken)).toBe(false);
  });

  test('in English; without a client named, the question is the site\'s own; without a session, the logged-out page', async () => {
    const { browser, sid } = await signIn(user, new Browser(t.issuer, 'en'));
    const page = await browser.follow('/oauth/logout');
    const html = await page.response.text();
    expect(html).toContain('<p id="end-session-question">Do you want to log out of Foodsharing?</p>');
    expect(html).toContain('<button type="submit" name="logout" value="yes" autofocus>Log out</button>');
    expect(await sessionExists(sid)).toBe(true);
    const anonymous = await new Browser(t.issuer, 'en').follow('/oauth/logout');
    expect(await anonymous.response.text()).toContain('<p role="status">You are now logged out.</p>');
  });
});

describe('an expired hint', () => {
  test('still proves the client: logged out at once (RP-Initiated Logout 1.0 §2)', async () => {
    const { browser, idToken, sid } = await signIn();
    t.clock.advance(2 * 3600);
    const { location } = await browser.follow(client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'late' }).href);
    expect(location).toBe(`${BYE}?state=late`);
    expect(await sessionExists(sid)).toBe(false);
  });
});

describe('a post_logout_redirect_uri that cannot be validated: dropped, the member asked, our own logged-out page', () => {
  /** The confirmation without a way back to the app; the session still there until the member answers. */
  async function expectAskedWithoutRedirect(browser: Browser, url: string, sid: string) {
    const page = await browser.follow(url);
    expect(page.location).toBeUndefined();
    expect(page.response.status).toBe(200);
    const html = await page.response.text();
    expect(html).toContain('<form method="post" action="/oauth/logout">');
    expect(html).not.toContain('Danach geht es weiter zu');
    const fields = formFields(html);
    expect(fields.post_logout_redirect_uri).toBeUndefined();
    expect(fields.state).toBeUndefined();
    expect(await sessionExists(sid)).toBe(true);
    const answered = await browser.follow('/oauth/logout', { form: { ...fields, logout: 'yes' } });
    expect(answered.location).toBeUndefined();
    expect(answered.response.status).toBe(200);
    expect(await answered.response.text()).toContain('<p role="status">Du bist jetzt abgemeldet.</p>');
    expect(await sessionExists(sid)).toBe(false);
  }

  test('only post_logout_redirect_uri, no id_token_hint and no client_id (as OmniAuth sends it)', async () => {
    const { browser, sid } = await signIn();
    await expectAskedWithoutRedirect(browser, `/oauth/logout?post_logout_redirect_uri=${encodeURIComponent(BYE)}&state=s`, sid);
  });

  test('a URI not registered for the client, even with the session\'s own ID token', async () => {
    const { browser, idToken, sid } = await signIn();
    await expectAskedWithoutRedirect(browser, client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:3000/elsewhere', state: 's' }).href, sid);
  });

  test('the registered URI with a query added', async () => {
    const { browser, idToken, sid } = await signIn();
    await expectAskedWithoutRedirect(browser, client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: `${BYE}?extra=1` }).href, sid);
  });

  test('without a session: the logged-out page, no redirect', async () => {
    const { response, location } = await new Browser(t.issuer).follow(`/oauth/logout?post_logout_redirect_uri=${encodeURIComponent('https://evil.example/')}&state=s`);
    expect(location).toBeUndefined();
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<p role="status">Du bist jetzt abgemeldet.</p>');
  });
});
