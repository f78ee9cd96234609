/**
 * The client setting require_pushed_authorization_requests (RFC 9126 §6) on
 * the admin screen: offered and labelled in German and English, stored on
 * create, shown on edit, turned off by an unchecked box.
 */
import { describe, expect, it } from 'vitest';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';

const t = useTestApp();

function post(url: string, session: LoggedIn, extra: [string, string][]) {
  const form: [string, string][] = [
    ['csrf_token', session.csrfToken], ['client_id', 'par-app'], ['name', 'PAR App'], ['confidential', '1'], ['redirect_uris', 'https://par.example.org/cb'], ...extra,
  ];
  return t.app.inject({
    method: 'POST', url, payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
  });
}

describe('pushed authorization requests on the admin screen', () => {
  it('offers the checkbox, labelled, in German and English', async () => {
    const orga = await t.as('orga');
    const page = await t.call('GET', '/admin/oauthclients/new', orga);
    expect(page.body).toContain('<input type="checkbox" id="requirePushedAuthorizationRequests" name="require_pushed_authorization_requests" value="1" aria-describedby="requirePushedAuthorizationRequests-help">');
    expect(page.body).toContain('<label class="inline" for="requirePushedAuthorizationRequests">Nur vorab übermittelte Autorisierungsanfragen (PAR) annehmen</label>');
    const english = await t.call('GET', '/admin/oauthclients/new', orga, undefined, { 'accept-language': 'en' });
    expect(english.body).toContain('<label class="inline" for="requirePushedAuthorizationRequests">Accept only pushed authorization requests (PAR)</label>');
    expect(english.body).toContain('The app must send every request to /oauth/par first (RFC 9126)');
  });

  it('stores it on create, shows it on edit, clears it when unchecked', async () => {
    const orga = await t.as('orga');
    const created = await post('/admin/oauthclients', orga, [['require_pushed_authorization_requests', '1']]);
    expect(created.statusCode).toBe(200);
    expect(await findClient(t.db, 'par-app')).toMatchObject({ requirePushedAuthorizationRequests: true });
    const edit = await t.call('GET', '/admin/oauthclients/par-app/edit', orga);
    expect(edit.body).toMatch(/name="require_pushed_authorization_requests" value="1" aria-describedby="requirePushedAuthorizationRequests-help" checked>/);
    const cleared = await post('/admin/oauthclients/par-app', orga, []);
    expect(cleared.statusCode).toBe(303);
    expect(await findClient(t.db, 'par-app')).toMatchObject({ requirePushedAuthorizationRequests: false });
  });
});
