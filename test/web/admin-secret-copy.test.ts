/**
 * The page that shows a client secret once offers a copy button: a static
 * script (the pages' CSP refuses inline ones), the button hidden until the
 * script shows it, its messages in the page's language, a status region
 * that announces them.
 */
import { describe, expect, it } from 'vitest';
import { secretIn, useAdminScreen } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, post, get, fullForm } = screen;

describe('the copy button of the secret', () => {
  it('is on the secret page, in German and English, with a status region and the script as a file', async () => {
    const created = await post('/admin/oauthclients', screen.orga, fullForm('karte', screen.orga.csrfToken));
    expect(created.statusCode).toBe(200);
    expect(created.body).toContain('<button type="button" id="copy-secret" class="secondary" data-copy="client-secret" data-status="copy-status"'
      + ' data-copied="Das Secret ist in der Zwischenablage."'
      + ' data-fallback="Der Browser erlaubt das Kopieren nicht. Das Secret ist markiert: drücke Strg+C (auf dem Mac ⌘C), um es zu kopieren." hidden>Secret kopieren</button>');
    expect(created.body).toContain('<p id="copy-status" role="status" aria-live="polite"></p>');
    expect(created.body).toContain('<script src="/static/copy-secret.js" defer></script>');
    expect(created.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(created.headers['content-security-policy']).toContain("script-src 'self'");

    const regenerated = await post('/admin/oauthclients/karte/secret', screen.orga, [['csrf_token', screen.orga.csrfToken]], { 'accept-language': 'en' });
    expect(secretIn(regenerated.body)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(regenerated.body).toContain(' data-copied="The secret is on the clipboard."'
      + ' data-fallback="The browser does not allow copying. The secret is selected: press Ctrl+C (⌘C on a Mac) to copy it." hidden>Copy secret</button>');
  });

  it('serves the script as JavaScript, cacheable, to anyone', async () => {
    const script = await t.app.inject({ url: '/static/copy-secret.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=3600');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(script.body).toContain('navigator.clipboard.writeText(field.value)');
    expect((await get('/static/style.css', null)).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('serves the pages\' icon, which every page links (browsers then ask for no /favicon.ico)', async () => {
    const icon = await get('/static/favicon.svg', null);
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(icon.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect((await get('/login', null)).body).toContain('<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">');
  });
});
