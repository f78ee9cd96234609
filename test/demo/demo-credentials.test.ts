/**
 * A production start refuses while a published demo credential
 * still works (or says so at error level with ALLOW_DEMO_IN_PRODUCTION=true),
 * and `demo remove` ends them. The start-up decision on the real database
 * (PGlite, or PostgreSQL with TEST_DATABASE_URL), without starting a server.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUserPassword } from '../../src/accounts/accounts.service.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import type { Config } from '../../src/config.ts';
import { DEMO_PASSWORD, DEMO_USER_EMAILS, loadDemoData, type DemoSummary } from '../../src/demo/demo-data.ts';
import { DEMO_CLIENT_IDS } from '../../src/demo/demo-oauth.ts';
import { removeDemoAccounts } from '../../src/demo/demo-removal.ts';
import { createClient, regenerateClientSecret } from '../../src/oauth/clients/clients.service.ts';
import { checkDemoCredentials, DemoCredentialsInProduction } from '../../src/startup.ts';
import { buildTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { makeUser, TEST_PASSWORD } from '../helpers/factories.ts';
import { logInAs } from '../helpers/session.ts';

const PRODUCTION = { NODE_ENV: 'production', DATABASE_URL: 'postgres://unused/x', PUBLIC_URL: 'https://id.example.org', MAIL: 'off' };
const REMOVE = 'Remove the demo accounts and clients with `npm run cli -- demo remove` (`foodsharing demo remove` where the package is installed), '
  + 'or give each a new password (user set-password) or secret (client rotate-secret). '
  + 'To start anyway, set ALLOW_DEMO_IN_PRODUCTION=true (every start then logs an error).';

const configs: { removeDataDir(): Promise<void> }[] = [];
async function configOf(env: Record<string, string>): Promise<Config> {
  const made = await testConfig(env);
  configs.push(made);
  return made.config;
}

let t: TestApp;
let demo: DemoSummary;
beforeAll(async () => {
  t = await buildTestApp();
  demo = await loadDemoData(t.db, t.keys);
});
afterAll(async () => {
  await t?.close();
  await Promise.all(configs.map((c) => c.removeDataDir()));
});

const refusalOf = (config: Config) => checkDemoCredentials(config, t.db, t.keys).then(() => undefined, (error: unknown) => error);
const logIn = (email: string, password: string) => t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email, password } });

describe('a production start on a database that holds the demo dataset', () => {
  it('is refused, naming each demo account and client that still has its published credential, the command and the setting', async () => {
    const error = await refusalOf(await configOf(PRODUCTION));
    expect(error).toBeInstanceOf(DemoCredentialsInProduction);
    expect((error as Error).message).toBe([
      'NODE_ENV=production, but published demo credentials still work on this database:',
      ...DEMO_USER_EMAILS.map((email) => `  - account ${email} still has the demo password`),
      '  - OAuth client demo-app still has the demo secret',
      REMOVE,
    ].join('\n'));
  });

  it('goes ahead with ALLOW_DEMO_IN_PRODUCTION=true, with an error-level notice naming them; outside production nothing is checked', async () => {
    const notice = await checkDemoCredentials(await configOf({ ...PRODUCTION, ALLOW_DEMO_IN_PRODUCTION: 'true' }), t.db, t.keys);
    expect(notice?.level).toBe('error');
    expect(notice?.message).toContain('ALLOW_DEMO_IN_PRODUCTION=true: this production server accepts published demo credentials; anyone can use them:\n'
      + '  - account foodsharer@example.org still has the demo password\n');
    expect(notice?.message).toContain('  - OAuth client demo-app still has the demo secret\nRemove them with `npm run cli -- demo remove`');
    expect(await refusalOf(await configOf({ ...PRODUCTION, ALLOW_DEMO_IN_PRODUCTION: 'false' }))).toBeInstanceOf(DemoCredentialsInProduction);
    expect(await checkDemoCredentials(await configOf({ NODE_ENV: 'development' }), t.db, t.keys)).toBeUndefined();
  });

  it('no longer names an account whose password or a client whose secret was changed', async () => {
    const orga = demo.users.find((u) => u.role === 'orga')!;
    await setUserPassword(t.db, orga.id, 'a new password for orga', t.clock.now());
    await regenerateClientSecret(t.db, t.keys, 'demo-app', new Date());
    const error = await refusalOf(await configOf(PRODUCTION));
    expect((error as Error).message).toBe([
      'NODE_ENV=production, but published demo credentials still work on this database:',
      ...DEMO_USER_EMAILS.filter((email) => email !== orga.email).map((email) => `  - account ${email} still has the demo password`),
      REMOVE,
    ].join('\n'));
  });
});

describe('demo remove', () => {
  it('deletes the demo accounts (sessions too) and clients, keeps everything else, and then production starts', async () => {
    const member = await makeUser(t.db, { email: 'ada@example.com' });
    await createClient(t.db, t.keys, { clientId: 'wiki', name: 'Wiki', confidential: false, redirectUris: ['https://wiki.example.com/cb'],
      scopes: ['openid'], grantTypes: ['authorization_code'], requiredRegions: [] });
    const frieda = await logInAs(t.app, { email: 'foodsharer@example.org', password: DEMO_PASSWORD });
    const ada = await logInAs(t.app, member);
    const events: object[] = [];
    const log = { info: (fields: object) => events.push(fields), warn: (fields: object) => events.push(fields) };

    const removal = await removeDemoAccounts(t.db, log);

    expect(removal).toEqual({ users: demo.users.map((u) => ({ id: u.id, email: u.email })), clientIds: [...DEMO_CLIENT_IDS], polls: 2 });
    expect(events).toEqual([
      { event: 'oauth.client.deleted', clientId: 'demo-app' },
      { event: 'oauth.client.deleted', clientId: 'demo-spa' },
      { event: 'demo.removed', userIds: demo.users.map((u) => u.id), clientIds: ['demo-app', 'demo-spa'] },
    ]);
    expect((await logIn('foodsaver@example.org', DEMO_PASSWORD)).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: frieda.cookie } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: ada.cookie } })).statusCode).toBe(200);
    expect((await logIn(member.email, TEST_PASSWORD)).statusCode).toBe(200);
    const clients = await t.db.selectFrom('oauth_clients').select('client_id').execute();
    expect(clients).toEqual([{ client_id: 'wiki' }]);
    expect(await t.db.selectFrom('regions').select('id').execute()).toHaveLength(demo.regions.length);
    expect((await sql`select 1 from demo_summary`.execute(t.db)).rows).toEqual([]);

    expect(await checkDemoCredentials(await configOf(PRODUCTION), t.db, t.keys)).toBeUndefined();
    expect(await checkDemoCredentials(await configOf({ ...PRODUCTION, ALLOW_DEMO_IN_PRODUCTION: 'true' }), t.db, t.keys)).toEqual({
      level: 'warn',
      message: 'ALLOW_DEMO_IN_PRODUCTION=true, though no demo credential works on this database: unset it, so that a demo credential never goes unnoticed.',
    });
    expect(await removeDemoAccounts(t.db, log)).toEqual({ users: [], clientIds: [], polls: 0 });
  });

  it('finds a demo account by its known address even without the demo summary, whatever the case of the address', async () => {
    await makeUser(t.db, { email: 'Orga@Example.org' });
    // Given it before the password rules refused the published demo password (no command sets it now).
    await t.db.updateTable('users').set({ password_hash: await hashPassword(DEMO_PASSWORD) }).where('email', '=', 'Orga@Example.org').execute();
    const error = await refusalOf(await configOf(PRODUCTION));
    expect((error as Error).message).toContain('  - account Orga@Example.org still has the demo password\n');
    expect((await removeDemoAccounts(t.db, { info: () => {}, warn: () => {} })).users).toEqual([{ id: expect.any(Number), email: 'Orga@Example.org' }]);
  });
});
