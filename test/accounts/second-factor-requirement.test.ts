/**
 * REQUIRE_SECOND_FACTOR: an organisation member without a second factor is
 * signed in but reaches only /settings/security (and logout) until they have
 * one — pages redirect there with `return_to`, /api answers 403 with a
 * problem — and then continues where they were going. Other roles are not
 * held. Real database, app.inject().
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { makeUser } from '../helpers/factories.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { codeAt, postForm, startEnrolment } from '../helpers/one-time-codes.ts';

const clock = new FrozenClock(new Date('2026-03-02T09:00:10Z'));
const t = useTestApp({ clock, env: { REQUIRE_SECOND_FACTOR: 'orga' } });

describe('REQUIRE_SECOND_FACTOR', () => {
  it('is parsed from role names: none, a list, orga by default in production, none elsewhere; unknown names refused', () => {
    const base = { PUBLIC_URL: 'http://localhost:8080' };
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).requireSecondFactor).toEqual([]);
    expect(loadConfig({ ...base, NODE_ENV: 'test', REQUIRE_SECOND_FACTOR: 'ambassador, orga' }).requireSecondFactor).toEqual([3, 4]);
    expect(loadConfig({ ...base, NODE_ENV: 'test', REQUIRE_SECOND_FACTOR: 'none' }).requireSecondFactor).toEqual([]);
    expect(loadConfig({
      PUBLIC_URL: 'https://id.example', NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', MAIL: 'off',
    }).requireSecondFactor).toEqual([4]);
    expect(() => loadConfig({ ...base, NODE_ENV: 'test', REQUIRE_SECOND_FACTOR: 'orga,admin' }))
      .toThrow('REQUIRE_SECOND_FACTOR must be none or role names separated by commas (foodsharer, foodsaver, store-manager, ambassador, orga); unknown: admin');
  });

  it('holds an orga member without a second factor at /settings/security until enrolled, then lets them continue', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    const session = await t.logIn(orga);
    const admin = await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: session.cookie } });
    expect(admin.statusCode).toBe(303);
    expect(admin.headers.location).toBe('/settings/security?return_to=%2Fadmin%2Foauthclients#one-time-codes');
    const consent = await t.app.inject({ url: '/oauth/authorize?client_id=x', headers: { cookie: session.cookie } });
    expect(consent.statusCode).toBe(303);
    expect(consent.headers.location).toMatch(/^\/settings\/security\?return_to=%2Foauth%2Fauthorize/);
    const api = await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } });
    expect(api.statusCode).toBe(403);
    expect(api.headers['content-type']).toContain('application/problem+json');
    expect(api.json()).toMatchObject({
      status: 403, code: 'auth.second-factor-enrolment-required',
      detail: 'Your role requires a second factor (a passkey or one-time codes). Set one up at http://localhost:8080/settings/security first.',
    });

    const page = await t.app.inject({ url: '/settings/security?return_to=%2Fadmin%2Foauthclients', headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Deine Rolle verlangt einen zweiten Faktor.');
    expect(page.body).toContain('<input type="hidden" name="return_to" value="/admin/oauthclients">');
    const started = await postForm(t.app, '/settings/security/one-time-codes/start', session.cookie, { csrf_token: session.csrfToken, return_to: '/admin/oauthclients' });
    expect(started.headers.location).toBe('/settings/security?return_to=%2Fadmin%2Foauthclients#one-time-codes');
    const secret = await startEnrolment(t.app, session);
    const confirmed = await postForm(t.app, '/settings/security/one-time-codes/confirm', session.cookie, {
      csrf_token: session.csrfToken, code: codeAt(secret, clock.now()), return_to: '/admin/oauthclients',
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain('<a href="/admin/oauthclients">Weiter</a>');
    expect((await t.app.inject({ url: '/admin/oauthclients', headers: { cookie: session.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } })).statusCode).toBe(200);
  });

  it('lets the held member log out; holds no one of another role', async () => {
    const orga = await makeUser(t.db, { role: 'orga' });
    const session = await t.logIn(orga);
    expect((await t.app.inject({ url: '/logout', headers: { cookie: session.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers })).statusCode).toBe(204);
    const member = await t.logIn(await makeUser(t.db, { role: 'ambassador' }));
    expect((await t.app.inject({ url: '/settings/apps', headers: { cookie: member.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user/current', headers: { cookie: member.cookie } })).statusCode).toBe(200);
  });
});
