/**
 * The start page `/` by role: every member sees their apps (how many hold a
 * live grant) and their account's security (live sessions, second factor);
 * organisation members also the admin screens; logged out, the login link.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
const DAY = 86_400_000;

async function addClient(clientId: string): Promise<number> {
  await createClient(t.db, t.keys, { clientId, name: clientId, confidential: true, redirectUris: [`https://${clientId}.example/cb`], scopes: [], grantTypes: ['refresh_token'], requiredRegions: [] });
  return (await findClientRow(t.db, clientId))?.id ?? 0;
}

async function addGrant(userId: number, clientRowId: number, options: { expiresInDays?: number; revoked?: boolean } = {}): Promise<void> {
  const now = t.clock.now();
  await t.db.insertInto('oauth_grants').values({
    client_id: clientRowId, user_id: userId, scopes: ['openid'], auth_time: now,
    expires_at: new Date(now.getTime() + (options.expiresInDays ?? 30) * DAY), revoked_at: options.revoked ? now : null,
  }).execute();
}

const home = (session: TestSession | null, language = 'de') => t.app.inject({ url: '/', headers: { 'accept-language': language, ...(session ? { cookie: session.cookie } : {}) } });

const ADMIN_SECTION_DE = '<section aria-labelledby="home-admin">\n  <h2 id="home-admin">Verwaltung</h2>\n  <ul>\n'
  + '    <li><a href="/admin/oauthclients">OAuth-Clients</a></li>\n    <li><a href="/admin/audit">Audit-Log</a></li>\n    <li><a href="/admin/users">Mitglieder</a></li>\n'
  + '  </ul>\n</section>';

let foodsaver: TestUser;
let ambassador: TestUser;
let orga: TestUser;

beforeAll(async () => {
  const berlin = await makeRegion(t.db, { name: 'Berlin' });
  foodsaver = await makeUser(t.db, { role: 'foodsaver', firstName: 'Mia', lastName: 'Muster', email: 'mia@example.org' });
  ambassador = await makeUser(t.db, { role: 'ambassador', regionIds: [berlin], ambassadorOf: [berlin] });
  orga = await makeUser(t.db, { role: 'orga' });
  const [karte, chat, old, gone] = [await addClient('karte'), await addClient('chat'), await addClient('old'), await addClient('gone')];
  // Two apps with live grants (one of them twice); an expired and a revoked grant and a consent alone do not count.
  await addGrant(foodsaver.id, karte);
  await addGrant(foodsaver.id, karte);
  await addGrant(foodsaver.id, chat);
  await addGrant(foodsaver.id, old, { expiresInDays: -1 });
  await addGrant(foodsaver.id, gone, { revoked: true });
  await rememberConsent(t.db, foodsaver.id, gone, ['openid'], t.clock.now());
  await addGrant(ambassador.id, karte);
});

describe('the start page', () => {
  it('logged out: the login link, nothing of an account', async () => {
    const page = await home(null);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<p>Du bist nicht angemeldet. <a href="/login">Anmelden</a></p>');
    expect(page.body).not.toContain('<section');
  });

  it('a foodsaver: their apps and their account\'s security, no admin links (German)', async () => {
    const session = await logInAs(t.app, foodsaver);
    await logInAs(t.app, foodsaver);
    const page = await home(session);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<p>Angemeldet als Mia Muster (mia@example.org).</p>');
    expect(page.body).toContain('<section aria-labelledby="home-apps">\n  <h2 id="home-apps">Deine Apps</h2>\n'
      + '  <p id="home-apps-count">Gerade haben 2 Apps Zugriff auf dein Konto.</p>\n'
      + '  <p><a href="/settings/apps">Apps ansehen und Zugriff entziehen</a></p>\n</section>');
    expect(page.body).toContain('<section aria-labelledby="home-security">\n  <h2 id="home-security">Sicherheit deines Kontos</h2>\n  <ul>\n'
      + '    <li id="home-sessions">2 angemeldete Sitzungen</li>\n    <li id="home-second-factor">Zweiter Faktor: aus</li>\n  </ul>\n'
      + '  <p><a href="/settings/security">Sitzungen und Passwort verwalten</a></p>\n</section>');
    expect(page.body).not.toContain('home-admin');
    expect(page.body).not.toContain('/admin/');
  });

  it('an ambassador: one app, one session, still no admin links (English)', async () => {
    const page = await home(await logInAs(t.app, ambassador), 'en');
    expect(page.body).toContain('<p id="home-apps-count">1 app has access to your account right now.</p>');
    expect(page.body).toContain('<li id="home-sessions">1 signed-in session (this one)</li>');
    expect(page.body).toContain('<li id="home-second-factor">Second factor: off</li>');
    expect(page.body).not.toContain('home-admin');
    expect(page.body).not.toContain('/admin/');
  });

  it('a member with a passkey: second factor on', async () => {
    const session = await logInAs(t.app, ambassador);
    await t.db.insertInto('passkeys').values({
      user_id: ambassador.id, credential_id: 'home-cred', public_key: Buffer.alloc(77), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    const page = await home(session, 'en');
    expect(page.body).toContain('<li id="home-second-factor">Second factor: on</li>');
    await t.db.deleteFrom('passkeys').where('credential_id', '=', 'home-cred').execute();
  });

  it('an organisation member: no apps, and the admin screens (clients, audit log, members)', async () => {
    const session = await logInAs(t.app, orga);
    const page = await home(session);
    expect(page.body).toContain('<p id="home-apps-count">Gerade hat keine App Zugriff auf dein Konto.</p>');
    expect(page.body).toContain(ADMIN_SECTION_DE);
    const english = await home(session, 'en');
    expect(english.body).toContain('<h2 id="home-admin">Administration</h2>');
    expect(english.body).toContain('<li><a href="/admin/oauthclients">OAuth clients</a></li>\n    <li><a href="/admin/audit">Audit log</a></li>\n    <li><a href="/admin/users">Members</a></li>');
    // The main navigation leads to all three on every page.
    const nav = (body: string) => /<nav aria-label="[^"]+">([\s\S]*?)<\/nav>/.exec(body)?.[1] ?? '';
    expect(nav(english.body)).toMatch(/href="\/admin\/oauthclients">OAuth clients<\/a>\s+<a href="\/admin\/users">Members<\/a>\s+<a href="\/admin\/audit">Audit log<\/a>/);
    expect(nav((await home(await logInAs(t.app, await makeUser(t.db)))).body)).not.toContain('/admin/');
  });
});
