/**
 * /settings/apps (SPEC §5.6): a member sees every app with access — remembered
 * consent or a live grant — and revokes one, which also revokes its grants
 * (refresh and access tokens). Real database, app.inject().
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { findConsentScopes, rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, formFields, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
let member: TestUser;
let other: TestUser;
let session: TestSession;
let karte: number;
let chat: number;

async function addClient(clientId: string, name: string): Promise<number> {
  await createClient(t.db, t.keys, { clientId, name, confidential: true, redirectUris: [`https://${clientId}.example/cb`], scopes: ['profile', 'email', 'regions'], grantTypes: ['refresh_token'], requiredRegions: [] });
  return (await findClientRow(t.db, clientId))?.id ?? 0;
}

/** A grant as a code exchange leaves it: the family its refresh tokens belong to. */
async function addGrant(userId: number, clientRowId: number): Promise<number> {
  const now = t.clock.now();
  const grant = await t.db.insertInto('oauth_grants').values({
    client_id: clientRowId, user_id: userId, scopes: ['openid'], auth_time: now, expires_at: new Date(now.getTime() + 30 * 86400_000),
  }).returning('id').executeTakeFirstOrThrow();
  return grant.id;
}

async function revokedAt(grantId: number) {
  return (await t.db.selectFrom('oauth_grants').select('revoked_at').where('id', '=', grantId).executeTakeFirstOrThrow()).revoked_at;
}

function revoke(clientId: string, csrf: string | undefined, cookie = session.cookie) {
  const form = new URLSearchParams({ client_id: clientId, ...(csrf === undefined ? {} : { csrf_token: csrf }) });
  return t.app.inject({ method: 'POST', url: '/settings/apps/revoke', payload: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
}

beforeAll(async () => {
  member = await makeUser(t.db, { firstName: 'Mia' });
  other = await makeUser(t.db);
  session = await logInAs(t.app, member);
  karte = await addClient('karte', 'Foodsharing Karte');
  chat = await addClient('chat', 'Foodsharing Chat <beta>');
  await addClient('never', 'Never Allowed');
  await rememberConsent(t.db, member.id, karte, ['openid', 'profile', 'email'], new Date('2026-03-14T10:00:00Z'));
  await rememberConsent(t.db, member.id, chat, ['openid'], new Date('2026-05-01T10:00:00Z'));
  await rememberConsent(t.db, other.id, karte, ['openid', 'regions'], new Date('2026-03-14T10:00:00Z'));
});

describe('/settings/apps', () => {
  it('sends logged-out visitors to the login page and back', async () => {
    const page = await t.app.inject({ url: '/settings/apps' });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login?return_to=%2Fsettings%2Fapps');
    const post = await t.app.inject({ method: 'POST', url: '/settings/apps/revoke', payload: 'client_id=karte', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toBe('/login?return_to=%2Fsettings%2Fapps');
    expect(await findConsentScopes(t.db, member.id, karte)).toEqual(['openid', 'profile', 'email']);
  });

  it('lists the remembered apps with their scopes in plain words and the date, only the member\'s own', async () => {
    const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<th scope="row">Foodsharing Karte</th>');
    expect(page.body).toContain('<th scope="row">Foodsharing Chat &lt;beta&gt;</th>');
    expect(page.body).not.toContain('Never Allowed');
    expect(page.body).toContain('<li>Deine Nutzer-ID und deinen Vornamen, um dich anzumelden</li><li>Deinen vollständigen Namen und dein Profilbild</li><li>Deine E-Mail-Adresse</li>');
    expect(page.body).not.toContain('Die Bezirke und Arbeitsgruppen');
    expect(page.body).toContain('<time datetime="2026-03-14T10:00:00.000Z">14. März 2026</time>');
    expect(page.body).toContain('aria-label="Zugriff widerrufen: Foodsharing Karte"');

    const english = await t.app.inject({ url: '/settings/apps', headers: { cookie: session.cookie, 'accept-language': 'en-US' } });
    expect(english.body).toContain('<li>Your full name and profile picture</li><li>Your email address</li>');
    expect(english.body).toContain('14 March 2026');

    const otherPage = await t.app.inject({ url: '/settings/apps', headers: { cookie: (await logInAs(t.app, other)).cookie } });
    expect(otherPage.body).toContain('Die Bezirke und Arbeitsgruppen, in denen du Mitglied bist');
    expect(otherPage.body).not.toContain('Foodsharing Chat');
  });

  it('refuses a revocation without the CSRF token and changes nothing', async () => {
    const grant = await addGrant(member.id, karte);
    for (const csrf of [undefined, 'forged']) {
      const response = await revoke('karte', csrf);
      expect(response.statusCode).toBe(403);
    }
    expect(await findConsentScopes(t.db, member.id, karte)).toEqual(['openid', 'profile', 'email']);
    expect(await revokedAt(grant)).toBeNull();
  });

  it('revokes one app: its consent and this member\'s grants go, everything else stays', async () => {
    const mine = await addGrant(member.id, karte);
    const theirs = await addGrant(other.id, karte);
    const otherApp = await addGrant(member.id, chat);
    const response = await revoke('karte', session.csrfToken);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/settings/apps?revoked=karte');

    expect(await findConsentScopes(t.db, member.id, karte)).toBeUndefined();
    expect(await revokedAt(mine)).toBeInstanceOf(Date);
    expect(await revokedAt(theirs)).toBeNull();
    expect(await revokedAt(otherApp)).toBeNull();
    expect(await findConsentScopes(t.db, other.id, karte)).toEqual(['openid', 'regions']);
    expect(await findConsentScopes(t.db, member.id, chat)).toEqual(['openid']);

    const page = await t.app.inject({ url: '/settings/apps?revoked=karte', headers: { cookie: session.cookie } });
    expect(page.body).toContain('Der Zugriff für Foodsharing Karte wurde widerrufen.');
    expect(page.body).not.toContain('<th scope="row">Foodsharing Karte</th>');
    expect(page.body).toContain('<th scope="row">Foodsharing Chat &lt;beta&gt;</th>');
  });

  it('answers 404 for an app without access (no consent, no live grant)', async () => {
    expect((await revoke('karte', session.csrfToken)).statusCode).toBe(404);
    expect((await revoke('unknown', session.csrfToken)).statusCode).toBe(404);
    expect((await revoke('never', session.csrfToken)).statusCode).toBe(404);
  });
});

describe('/settings/apps after a real authorization', () => {
  it('lists an app allowed with "remember" and revoking it ends its refresh and access tokens', async () => {
    const { secret } = await createClient(t.db, t.keys, { clientId: 'flow-app', name: 'Flow App', confidential: true, redirectUris: [CALLBACK], scopes: ['regions'], grantTypes: ['refresh_token'], requiredRegions: [] });
    const user = await makeUser(t.db);
    const own = await logInAs(t.app, user);
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    const query = new URLSearchParams({ response_type: 'code', client_id: 'flow-app', redirect_uri: CALLBACK, scope: 'openid regions', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
    const consent = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: own.cookie } });
    expect(consent.statusCode).toBe(200);
    const decided = await t.app.inject({
      method: 'POST', url: '/oauth/authorize', headers: { cookie: own.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...formFields(consent.body), decision: 'allow', remember: '1' }).toString(),
    });
    const code = new URL(String(decided.headers.location)).searchParams.get('code') ?? '';
    const tokens = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: 'flow-app', client_secret: secret ?? '', code_verifier: TEST_VERIFIER });
    expect(tokens.statusCode).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = tokens.json() as { access_token: string; refresh_token: string };

    const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: own.cookie } });
    expect(page.body).toContain('<th scope="row">Flow App</th>');
    expect(page.body).toContain('Die Bezirke und Arbeitsgruppen');

    expect((await revoke('flow-app', own.csrfToken, own.cookie)).statusCode).toBe(303);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'flow-app', client_secret: secret ?? '' });
    expect(refreshed.statusCode).toBe(400);
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    const info = await t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
    expect(info.statusCode).toBe(401);
    const again = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: own.cookie } });
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('name="decision"');
  });
});

describe('/settings/apps: an app allowed once, without "remember"', () => {
  it('is listed while it holds a refresh token, marked as asking again; revoking it ends its tokens', async () => {
    const { secret } = await createClient(t.db, t.keys, { clientId: 'once-app', name: 'Once App', confidential: true, redirectUris: [CALLBACK], scopes: ['email'], grantTypes: ['refresh_token'], requiredRegions: [] });
    const user = await makeUser(t.db);
    const own = await logInAs(t.app, user);
    const query = new URLSearchParams({ response_type: 'code', client_id: 'once-app', redirect_uri: CALLBACK, scope: 'openid email', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
    const consent = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: own.cookie } });
    const decided = await t.app.inject({
      method: 'POST', url: '/oauth/authorize', headers: { cookie: own.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...formFields(consent.body), decision: 'allow' }).toString(),
    });
    const code = new URL(String(decided.headers.location)).searchParams.get('code') ?? '';
    const tokens = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: 'once-app', client_secret: secret ?? '', code_verifier: TEST_VERIFIER });
    expect(tokens.statusCode).toBe(200);
    const { refresh_token: refreshToken } = tokens.json() as { refresh_token: string };
    const clientRow = (await findClientRow(t.db, 'once-app'))?.id ?? 0;
    expect(await findConsentScopes(t.db, user.id, clientRow)).toBeUndefined();

    const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: own.cookie } });
    expect(page.body).toContain('<th scope="row">Once App</th>');
    expect(page.body).toContain('<li>Deine E-Mail-Adresse</li></ul><p class="muted">Nicht dauerhaft zugestimmt: fragt vor der nächsten Anmeldung wieder.</p>');
    const english = await t.app.inject({ url: '/settings/apps', headers: { cookie: own.cookie, 'accept-language': 'en' } });
    expect(english.body).toContain('Not allowed permanently: asks again before the next sign-in.');

    expect((await revoke('once-app', own.csrfToken, own.cookie)).statusCode).toBe(303);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'once-app', client_secret: secret ?? '' });
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    const after = await t.app.inject({ url: '/settings/apps', headers: { cookie: own.cookie } });
    expect(after.body).not.toContain('Once App');
    expect(after.body).toContain('Keine App hat Zugriff auf dein Konto.');
    expect((await revoke('once-app', own.csrfToken, own.cookie)).statusCode).toBe(404);
  });

  it('is no longer listed once its grant has expired', async () => {
    const user = await makeUser(t.db);
    const own = await logInAs(t.app, user);
    const grant = await addGrant(user.id, chat);
    await t.db.updateTable('oauth_grants').set({ expires_at: t.clock.now() }).where('id', '=', grant).execute();
    const page = await t.app.inject({ url: '/settings/apps', headers: { cookie: own.cookie } });
    expect(page.body).not.toContain('Foodsharing Chat');
    expect((await revoke('chat', own.csrfToken, own.cookie)).statusCode).toBe(404);
  });
});
