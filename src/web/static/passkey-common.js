/*
 * What both passkey scripts share (served between @simplewebauthn/browser's
 * bundle and each script, web/render.ts): a JSON POST to this site.
 */
(function passkeyCommon() {
  'use strict';
  /** POSTs `body` as JSON; `ok` and the answer's JSON (empty when there is none, or the network failed). */
  async function postJson(url, body) {
    try {
      const response = await fetch(url, {
        method: 'POST', credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const data = await response.json().catch(() => ({}));
      return { ok: response.ok, data };
    } catch {
      return { ok: false, data: {} };
    }
  }
  globalThis.FoodsharingPasskeys = { postJson };
})();
