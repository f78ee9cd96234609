/*
 * Adding a passkey at /settings/security (docs/security.md, "Passkeys").
 * Served after @simplewebauthn/browser's bundle as /static/passkey-settings.js.
 * The form <form data-passkey-register> posts nothing itself: its submission
 * runs POST /settings/security/passkeys/options, the authenticator, then POST
 * /settings/security/passkeys with the form's csrf_token and name; the
 * answer's location is the page again, with its notice.
 */
(function passkeySettings() {
  'use strict';
  const { startRegistration, browserSupportsWebAuthn } = globalThis.SimpleWebAuthnBrowser;
  const { postJson } = globalThis.FoodsharingPasskeys;

  function showError(form, message) {
    const box = form.querySelector('[data-passkey-error]');
    box.textContent = message;
    box.hidden = false;
    box.focus();
  }

  async function register(form) {
    const csrf = form.elements.namedItem('csrf_token').value;
    const name = form.elements.namedItem('name').value;
    const options = await postJson('/settings/security/passkeys/options', { csrf_token: csrf });
    const messages = options.data.messages ?? {};
    if (!options.ok || !options.data.options) return showError(form, options.data.error ?? form.dataset.failedText);
    let response;
    try {
      response = await startRegistration({ optionsJSON: options.data.options });
    } catch (error) {
      return showError(form, error && error.name === 'InvalidStateError' ? messages.exists : messages.cancelled ?? form.dataset.failedText);
    }
    const result = await postJson('/settings/security/passkeys', { csrf_token: csrf, name, response });
    if (result.ok && typeof result.data.location === 'string' && result.data.location.startsWith('/settings/security')) {
      window.location.assign(result.data.location);
      return undefined;
    }
    return showError(form, result.data.error ?? form.dataset.failedText);
  }

  function start() {
    const form = document.querySelector('form[data-passkey-register]');
    if (!form) return;
    // Hidden in the page: without this script it could only end in an error.
    form.hidden = false;
    if (!browserSupportsWebAuthn()) {
      form.querySelector('[data-passkey-unsupported]').hidden = false;
      form.querySelector('button[type="submit"]').disabled = true;
      return;
    }
    let busy = false;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (busy) return;
      busy = true;
      void register(form).finally(() => { busy = false; });
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
