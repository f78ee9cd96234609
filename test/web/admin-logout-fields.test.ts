/**
 * The logout settings of a client on the admin screen /admin/oauthclients
 * (RP-Initiated Logout 1.0 §3.1, Back-Channel Logout 1.0 §2.2): labelled
 * fields, stored on create and edit, cleared by emptying them, a message per
 * field for bad URIs (and nothing written).
 */
import { describe, expect, it } from 'vitest';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';

const t = useTestApp();

type Form = [string, string][];

function post(url: string, session: LoggedIn, form: Form, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url, payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie, ...headers },
  });
}

function form(clientId: string, csrf: string, logout: Form): Form {
  return [['csrf_token', csrf], ['client_id', clientId], ['name', 'Wiki'], ['confidential', '1'], ['redirect_uris', 'https://wiki.example.org/cb'], ...logout];
}

describe('logout settings on the admin screen', () => {
  it('offers the fields, labelled, in German and English', async () => {
    const orga = await t.as('orga');
    const page = await t.call('GET', '/admin/oauthclients/new', orga);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<label for="postLogoutRedirectUris">Redirect-URIs nach dem Abmelden</label>');
    expect(page.body).toContain('<textarea id="postLogoutRedirectUris" name="post_logout_redirect_uris"');
    expect(page.body).toContain('<label for="backchannelLogoutUri">Back-Channel-Logout-URI</label>');
    expect(page.body).toContain('<input type="url" id="backchannelLogoutUri" name="backchannel_logout_uri" value=""');
    expect(page.body).toContain('<input type="checkbox" id="backchannelLogoutSessionRequired" name="backchannel_logout_session_required" value="1">');
    const english = await t.call('GET', '/admin/oauthclients/new', orga, undefined, { 'accept-language': 'en' });
    expect(english.body).toContain('<label for="postLogoutRedirectUris">Redirect URIs after logout</label>');
    expect(english.body).toContain('<label class="inline" for="backchannelLogoutSessionRequired">Logout token must carry the session id (sid)</label>');
  });

  it('stores them on create, shows them on edit, clears them when emptied', async () => {
    const orga = await t.as('orga');
    const created = await post('/admin/oauthclients', orga, form('wiki', orga.csrfToken, [
      ['post_logout_redirect_uris', 'https://wiki.example.org/bye\r\nhttp://127.0.0.1:3000/bye\r\n'],
      ['backchannel_logout_uri', 'https://wiki.example.org/backchannel'], ['backchannel_logout_session_required', '1'],
    ]));
    expect(created.statusCode).toBe(200);
    expect(await findClient(t.db, 'wiki')).toMatchObject({
      postLogoutRedirectUris: ['https://wiki.example.org/bye', 'http://127.0.0.1:3000/bye'],
      backchannelLogoutUri: 'https://wiki.example.org/backchannel', backchannelLogoutSessionRequired: true,
    });
    const edit = await t.call('GET', '/admin/oauthclients/wiki/edit', orga);
    expect(edit.body).toContain('>https://wiki.example.org/bye\nhttp://127.0.0.1:3000/bye</textarea>');
    expect(edit.body).toContain('value="https://wiki.example.org/backchannel"');
    expect(edit.body).toMatch(/name="backchannel_logout_session_required" value="1" checked>/);

    const cleared = await post('/admin/oauthclients/wiki', orga, form('wiki', orga.csrfToken, [['post_logout_redirect_uris', ''], ['backchannel_logout_uri', '']]));
    expect(cleared.statusCode).toBe(303);
    expect(await findClient(t.db, 'wiki')).toMatchObject({ postLogoutRedirectUris: [], backchannelLogoutUri: null, backchannelLogoutSessionRequired: false });
  });

  it('names each bad URI next to its field and stores nothing', async () => {
    const orga = await t.as('orga');
    const refused = await post('/admin/oauthclients', orga, form('bad-logout', orga.csrfToken, [
      ['post_logout_redirect_uris', 'http://wiki.example.org/bye'], ['backchannel_logout_uri', 'https://wiki.example.org/bc#frag'],
    ]));
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<p class="field-error" id="postLogoutRedirectUris-error">Ungültig: „http://wiki.example.org/bye“.');
    expect(refused.body).toContain('<p class="field-error" id="backchannelLogoutUri-error">Ungültig. Erlaubt ist eine absolute URL ohne #-Fragment');
    expect(refused.body).toContain('aria-describedby="postLogoutRedirectUris-help postLogoutRedirectUris-error" aria-invalid="true"');
    expect(await findClient(t.db, 'bad-logout')).toBeUndefined();
  });
});
