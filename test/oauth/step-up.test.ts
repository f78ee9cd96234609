/**
 * Step-up (OpenID Connect Core §3.1.2.1 `acr_values`, §5.5.1.1 an essential
 * `acr` claim), end to end with openid-client v6 over real HTTP: a session
 * signed in with a password alone is asked for a one-time code before the
 * code is issued; the ID token then states amr `pwd otp mfa`, the requested
 * acr and the auth_time of the password. A member with no method that can meet the
 * request gets `unmet_authentication_requirements` at the redirect URI;
 * `prompt=none` gets `login_required`. Also through PAR.
 */
import * as client from 'openid-client';
import { beforeAll, describe, expect, test } from 'vitest';
import { ACR_MULTI_FACTOR, ACR_PASSWORD } from '../../src/accounts/authentication-methods.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { codeAt, enrol } from '../helpers/one-time-codes.ts';
import { Browser, CALLBACK, formFields, makeClient } from '../helpers/oauth.ts';

// Frozen (the codes of a time step are known) at the real time (openid-client checks the tokens' times).
const clock = new FrozenClock(new Date());
const t = useTestApp({ listening: true, clock });
let registered: { clientId: string; secret: string | null };
let config: client.Configuration;

beforeAll(async () => {
  registered = await makeClient(t);
  config = await client.discovery(new URL(t.baseUrl), registered.clientId, undefined, client.ClientSecretPost(registered.secret!), { execute: [client.allowInsecureRequests] });
});

/** An authorization request of the client; `extra` adds acr_values, claims or prompt. */
async function request(extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK, scope: 'openid', state, nonce, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra,
  });
  const exchange = (callback: string) => client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  return { url, state, exchange };
}

/** A browser signed in with a password alone, which has consented to the client: the member's first ID token claims. */
async function signedInWithPassword(member: TestUser) {
  const browser = new Browser(t.baseUrl);
  const first = await request();
  const claims = (await first.exchange(await browser.authorize(first.url.href, member, 'allow', true))).claims()!;
  expect(claims.amr).toEqual(['pwd']);
  return { browser, claims };
}

describe('step-up', () => {
  test('discovery advertises the acr values and the claims parameter', async () => {
    const metadata = config.serverMetadata();
    expect(metadata.acr_values_supported).toEqual(['urn:foodsharing:acr:password', 'urn:foodsharing:acr:mfa', 'phr']);
    expect(metadata.claims_parameter_supported).toBe(true);
  });

  test('acr_values: a password session is asked for a one-time code; the ID token states pwd otp mfa, the acr and the password\'s auth_time', async () => {
    const member = await makeUser(t.db);
    const { browser, claims: before } = await signedInWithPassword(member);
    // Set up in another browser: this one's session was signed in with the password alone.
    const { secret } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(60);

    const stepUp = await request({ acr_values: `${ACR_MULTI_FACTOR} phr` });
    const page = await browser.follow(stepUp.url.href);
    expect(page.url).toMatch(new RegExp(`^${t.baseUrl}/login/second-factor\\?return_to=%2Foauth%2Fauthorize%3F`));
    const html = await page.response.text();
    expect(html).toContain('Anmeldung bestätigen');
    // Who asks, by the name the app was registered with: the authenticator app is another app.
    expect(html).toContain('<p id="code-intro">„Test App“ verlangt eine stärkere Anmeldung. Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein.</p>');
    expect(html).toContain('Kein Zugriff auf deine Authenticator-App?');
    const wrong = await browser.follow('/login/second-factor', { form: { ...formFields(html), code: '000000' === codeAt(secret, clock.now()) ? '111111' : '000000' } });
    expect(wrong.response.status).toBe(401);
    const done = await browser.follow('/login/second-factor', { form: { ...formFields(html), code: codeAt(secret, clock.now()) } });
    expect(done.location).toMatch(/^http:\/\/127\.0\.0\.1:3000\/callback\?code=/);
    const claims = (await stepUp.exchange(done.location!)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.acr).toBe(ACR_MULTI_FACTOR);
    // The code adds a factor to the sign-in; it does not sign in again (a code alone is no reauthentication, NIST SP 800-63B §4.2.3).
    expect(claims.auth_time).toBe(before.auth_time!);
    expect(claims.sid).toBe(before.sid);

    // Met now: the next request with the same acr_values asks nothing.
    const again = await request({ claims: JSON.stringify({ id_token: { acr: { essential: true, values: [ACR_MULTI_FACTOR] } } }) });
    const direct = await browser.follow(again.url.href);
    expect(direct.location).toMatch(/^http:\/\/127\.0\.0\.1:3000\/callback\?code=/);
    expect((await again.exchange(direct.location!)).claims()!.acr).toBe(ACR_MULTI_FACTOR);
  });

  test('max_age with acr_values: a step-up when the sign-in is young enough for it to end in time, else the login with both factors at once', async () => {
    const member = await makeUser(t.db);
    const { browser, claims: before } = await signedInWithPassword(member);
    const { secret } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(100);
    // 100 s old: a step-up (given 5 minutes) would still end inside max_age=3600.
    const roomy = await request({ acr_values: ACR_MULTI_FACTOR, max_age: '3600' });
    expect((await browser.follow(roomy.url.href)).url).toMatch(new RegExp(`^${t.baseUrl}/login/second-factor\\?return_to=`));
    // Not inside max_age=300: the login page, then the second step, then the app — one round, not a code and a login after it.
    const tight = await request({ acr_values: ACR_MULTI_FACTOR, max_age: '300' });
    const login = await browser.follow(tight.url.href);
    expect(login.url).toMatch(new RegExp(`^${t.baseUrl}/login\\?return_to=%2Foauth%2Fauthorize%3F`));
    // Signed in already: the page says why it asks again, and for whom.
    expect(await login.response.text()).toContain('<p>„Test App“ bittet dich, dich noch einmal anzumelden, um zu bestätigen, dass du es bist.</p>');
    const secondStep = await browser.logIn(login.url, member);
    expect(secondStep.url).toBe(`${t.baseUrl}/login/second-factor`);
    clock.advance(30);
    const done = await browser.follow('/login/second-factor', { form: { ...formFields(await secondStep.response.text()), code: codeAt(secret, clock.now()) } });
    expect(done.location).toMatch(/^http:\/\/127\.0\.0\.1:3000\/callback\?code=/);
    const claims = (await tight.exchange(done.location!)).claims()!;
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.auth_time).toBe(before.auth_time! + 130);
    expect(claims.sid).toBe(before.sid);
  });

  test('the member cancels the step-up: access_denied at the redirect URI with the state, which openid-client reports; a login\'s second step cancels back to the login with the request', async () => {
    const member = await makeUser(t.db);
    const { browser } = await signedInWithPassword(member);
    await enrol(t.app, await t.logIn(member), clock.now());
    const stepUp = await request({ acr_values: ACR_MULTI_FACTOR });
    const html = await (await browser.follow(stepUp.url.href)).response.text();
    const cancel = /<a href="([^"]+)">Abbrechen und zurück zur App<\/a>/.exec(html)?.[1]?.replaceAll('&amp;', '&');
    expect(cancel).toMatch(/^\/oauth\/authorize\?.*&step_up=cancelled$/);
    const back = await browser.follow(cancel!);
    expect(back.location).toMatch(/^http:\/\/127\.0\.0\.1:3000\/callback\?error=access_denied&/);
    const answer = new URL(back.location!);
    expect(Object.fromEntries(answer.searchParams)).toEqual({ error: 'access_denied', error_description: 'The user cancelled the stronger sign-in the app asked for.', state: stepUp.state, iss: t.baseUrl });
    await expect(stepUp.exchange(back.location!)).rejects.toMatchObject({ error: 'access_denied' });
    // The marker decides nothing where no step-up is asked: a request the session meets gets its code.
    const plain = await request();
    expect((await browser.follow(`${plain.url.href}&step_up=cancelled`)).location).toMatch(/^http:\/\/127\.0\.0\.1:3000\/callback\?code=/);

    // A login's second step (a new browser): its cancel goes back to the login, with the app's request.
    const fresh = new Browser(t.baseUrl);
    const login = await fresh.follow(stepUp.url.href);
    // The login page names the app the login is for; not for a link made up with its id, which authorize would refuse.
    expect(await login.response.text()).toContain('<h1>Anmelden</h1>\n<p>Melde dich an, um mit „Test App“ fortzufahren.</p><form method="post" action="/login"');
    for (const madeUp of [`client_id=${registered.clientId}`, `client_id=${registered.clientId}&redirect_uri=https%3A%2F%2Fevil.example%2Fcb`,
      `client_id=${registered.clientId}&client_id=other&redirect_uri=${encodeURIComponent(CALLBACK)}`, `client_id=${registered.clientId}&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Ax`]) {
      const page = await new Browser(t.baseUrl).follow(`/login?${new URLSearchParams({ return_to: `/oauth/authorize?${madeUp}` })}`);
      expect(await page.response.text()).toContain('<h1>Anmelden</h1>\n<form method="post" action="/login"');
    }
    const secondStep = await fresh.logIn(login.url, member);
    const stepPage = await secondStep.response.text();
    expect(stepPage).toContain('<form method="post" action="/login/second-factor/cancel">');
    // A forged cancel (another site's form) changes nothing.
    expect((await fresh.follow('/login/second-factor/cancel', { form: { csrf_token: 'forged' } })).url).toBe(`${t.baseUrl}/login/second-factor`);
    expect(await t.db.selectFrom('pending_logins').select('user_id').where('user_id', '=', member.id).execute()).toHaveLength(1);
    const cancelled = await fresh.follow('/login/second-factor/cancel', { form: { csrf_token: formFields(stepPage).csrf_token! } });
    expect(cancelled.url).toBe(`${t.baseUrl}/login?${new URLSearchParams({ return_to: new URL(login.url).searchParams.get('return_to')! })}`);
    // The half-finished login is gone: the second step's page has nothing to confirm any more.
    expect(await t.db.selectFrom('pending_logins').select('user_id').where('user_id', '=', member.id).execute()).toEqual([]);
    expect((await fresh.follow('/login/second-factor')).url).toBe(`${t.baseUrl}/login`);
  });

  test('max_age with phr: the passkey-only step-up is asked for as it is (a passkey that verifies the member is a new sign-in)', async () => {
    const member = await makeUser(t.db);
    const { browser } = await signedInWithPassword(member);
    await t.db.insertInto('passkeys').values({
      user_id: member.id, credential_id: `phr-max-age-${member.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    clock.advance(3400);
    const stepUp = await request({ acr_values: 'phr', max_age: '3600' });
    expect((await browser.follow(stepUp.url.href)).url).toMatch(/\/login\/second-factor\?return_to=.*&passkey=only$/);
  });

  test('a member without a second factor: unmet_authentication_requirements at the redirect URI, which openid-client reports', async () => {
    const member = await makeUser(t.db);
    const { browser } = await signedInWithPassword(member);
    const stepUp = await request({ acr_values: ACR_MULTI_FACTOR });
    const answer = await browser.follow(stepUp.url.href);
    const callback = new URL(answer.location!);
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'unmet_authentication_requirements', error_description: 'The user has no authentication method that meets the requested acr values.',
      state: stepUp.state, iss: t.baseUrl,
    });
    await expect(stepUp.exchange(answer.location!)).rejects.toMatchObject({ error: 'unmet_authentication_requirements' });

    const unknown = await request({ acr_values: 'urn:example:gold' });
    expect(new URL((await browser.follow(unknown.url.href)).location!).searchParams.get('error_description')).toBe('None of the requested acr values is supported.');
    const malformed = await request({ claims: '{"id_token":' });
    const refused = new URL((await browser.follow(malformed.url.href)).location!);
    expect([refused.searchParams.get('error'), refused.searchParams.get('error_description')]).toEqual(['invalid_request', 'The claims parameter must be a JSON object.']);
  });

  test('a voluntary acr claim is a preference (OpenID Connect Core §5.5.1): asked where it can be met, else the code with the session\'s level', async () => {
    const voluntary = JSON.stringify({ id_token: { acr: { values: [ACR_MULTI_FACTOR] } } });
    const member = await makeUser(t.db);
    const { browser } = await signedInWithPassword(member);
    // No second factor: no error, and the ID token says the level the sign-in reached.
    const preferred = await request({ claims: voluntary });
    const answer = await browser.follow(preferred.url.href);
    expect(new URL(answer.location!).searchParams.get('code')).toEqual(expect.any(String));
    expect((await preferred.exchange(answer.location!)).claims()).toMatchObject({ amr: ['pwd'], acr: ACR_PASSWORD });
    // The same preference essential: the error.
    const essential = await request({ claims: JSON.stringify({ id_token: { acr: { essential: true, values: [ACR_MULTI_FACTOR] } } }) });
    expect(new URL((await browser.follow(essential.url.href)).location!).searchParams.get('error')).toBe('unmet_authentication_requirements');
    // With one-time codes the member is asked; with prompt=none, which forbids asking, the code comes at the session's level.
    const { secret } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(30);
    const silent = await request({ claims: voluntary, prompt: 'none' });
    const silentAnswer = await browser.follow(silent.url.href);
    expect((await silent.exchange(silentAnswer.location!)).claims()).toMatchObject({ amr: ['pwd'], acr: ACR_PASSWORD });
    // Asked, the member may decline: the code at the session's level, no access_denied.
    const declined = await request({ claims: voluntary });
    const html = await (await browser.follow(declined.url.href)).response.text();
    const cancel = /<a href="([^"]+)">Abbrechen und zurück zur App<\/a>/.exec(html)![1]!.replaceAll('&amp;', '&');
    const back = await browser.follow(cancel);
    expect((await declined.exchange(back.location!)).claims()).toMatchObject({ amr: ['pwd'], acr: ACR_PASSWORD });
    const asked = await request({ claims: voluntary });
    const page = await browser.follow(asked.url.href);
    expect(page.url).toContain('/login/second-factor?return_to=');
    const done = await browser.follow('/login/second-factor', { form: { ...formFields(await page.response.text()), code: codeAt(secret, clock.now()) } });
    expect((await asked.exchange(done.location!)).claims()).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: ACR_MULTI_FACTOR });
  });

  test('prompt=none with a step-up needed: login_required; through PAR the step-up is asked as from the front channel', async () => {
    const member = await makeUser(t.db);
    const { browser } = await signedInWithPassword(member);
    const { secret } = await enrol(t.app, await t.logIn(member), clock.now());
    clock.advance(30);
    const silent = await request({ acr_values: ACR_MULTI_FACTOR, prompt: 'none' });
    expect(new URL((await browser.follow(silent.url.href)).location!).searchParams.get('error')).toBe('login_required');

    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const pushed = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: CALLBACK, scope: 'openid', state, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', acr_values: ACR_MULTI_FACTOR,
    });
    const page = await browser.follow(pushed.href);
    expect(page.url).toContain('/login/second-factor?return_to=');
    const done = await browser.follow('/login/second-factor', { form: { ...formFields(await page.response.text()), code: codeAt(secret, clock.now()) } });
    const tokens = await client.authorizationCodeGrant(config, new URL(done.location!), { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
    expect(tokens.claims()).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: ACR_MULTI_FACTOR });
  });

  test('phr for a member with codes and a passkey: the page offers the passkey only (a code cannot meet it)', async () => {
    const member = await makeUser(t.db);
    const { browser } = await signedInWithPassword(member);
    await enrol(t.app, await t.logIn(member), clock.now());
    await t.db.insertInto('passkeys').values({
      user_id: member.id, credential_id: `cred-${member.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    const stepUp = await request({ acr_values: 'phr' });
    const page = await browser.follow(stepUp.url.href);
    expect(page.url).toMatch(/\/login\/second-factor\?return_to=.*&passkey=only$/);
    const html = await page.response.text();
    expect(html).toContain('<button type="button" data-passkey-login="/login/second-factor/passkey" hidden autofocus>Passkey verwenden</button>');
    expect(html).toContain('<script src="/static/passkey-login.js" defer></script>');
    expect(html).not.toContain('id="code"');
    expect(html).toContain('<input type="hidden" name="return_to" value="/oauth/authorize?');
    expect(html).toContain('<p id="code-intro">„Test App“ verlangt eine stärkere Anmeldung. Bestätige die Anmeldung mit deinem Passkey.</p>');
  });

  test('the page says who asks, and offers each factor the member has: the app by its name, none for a page of this server, a passkey beside the code', async () => {
    const member = await makeUser(t.db);
    const { browser } = await signedInWithPassword(member);
    await enrol(t.app, await t.logIn(member), clock.now());
    const introOf = async (returnTo: string) => /<p id="code-intro">([^<]*)<\/p>/.exec(await (await browser.follow(`/login/second-factor?${new URLSearchParams({ return_to: returnTo })}`)).response.text())?.[1];
    expect(await introOf('/settings/security')).toBe('Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein.');
    // Another site's address is no return_to: the page is for this server's start page.
    expect(await introOf('https://evil.example/')).toBe('Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein.');
    expect(await introOf('/oauth/authorize?client_id=no-such-app&response_type=code')).toBe('Eine App verlangt eine stärkere Anmeldung. Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein.');
    await t.db.insertInto('passkeys').values({
      user_id: member.id, credential_id: `cred-${member.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    const forApp = (redirectUri: string) => `/oauth/authorize?${new URLSearchParams({ client_id: registered.clientId, redirect_uri: redirectUri, response_type: 'code' })}`;
    expect(await introOf(forApp(CALLBACK)))
      .toBe('„Test App“ verlangt eine stärkere Anmeldung. Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein oder verwende einen Passkey.');
    // A request the app could not have sent (a redirect URI it has not registered) borrows no name.
    expect(await introOf(forApp('https://evil.example/cb'))).toBe('Eine App verlangt eine stärkere Anmeldung. Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein oder verwende einen Passkey.');
    // A login's second step: the password was right.
    const fresh = new Browser(t.baseUrl);
    const secondStep = await fresh.logIn(`${t.baseUrl}/login`, member);
    expect(secondStep.url).toBe(`${t.baseUrl}/login/second-factor`);
    expect(await secondStep.response.text()).toContain('<p id="code-intro">Dein Passwort stimmt. Gib jetzt den sechsstelligen Code aus deiner Authenticator-App ein oder verwende einen Passkey.</p>');
  });
});
