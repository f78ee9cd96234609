/*
 * Signing in with a passkey (docs/security.md, "Passkeys"). Served after
 * @simplewebauthn/browser's bundle as /static/passkey-login.js.
 *
 * - Every <button data-passkey-login> inside a form runs the ceremony when
 *   pressed: POST /login/passkey/options, the authenticator, POST
 *   /login/passkey (or the path the attribute names: the second login
 *   step's /login/second-factor/passkey) with the form's csrf_token,
 *   return_to and remember; the answer's location is where the browser goes
 *   next.
 * - An input with autocomplete="… webauthn" offers the member's passkeys in
 *   the browser's autofill (conditional mediation), where supported.
 */
(function passkeyLogin() {
  'use strict';
  const { startAuthentication, browserSupportsWebAuthn, browserSupportsWebAuthnAutofill } = globalThis.SimpleWebAuthnBrowser;
  const { postJson } = globalThis.FoodsharingPasskeys;

  function valueOf(form, name) {
    const field = form.elements.namedItem(name);
    return field && typeof field.value === 'string' ? field.value : undefined;
  }


  function showError(form, message) {
    let box = form.querySelector('[data-passkey-error]');
    if (!box) {
      box = document.createElement('p');
      box.className = 'error';
      box.setAttribute('role', 'alert');
      box.setAttribute('data-passkey-error', '');
      box.tabIndex = -1;
      form.prepend(box);
    }
    box.textContent = message;
    box.hidden = false;
    box.focus();
  }

  /** Only a path on this site is followed. */
  function isLocalPath(location) {
    return typeof location === 'string' && location.startsWith('/') && !location.startsWith('//') && !location.startsWith('/\\');
  }

  async function signIn(form, useBrowserAutofill, endpoint) {
    const base = { csrf_token: valueOf(form, 'csrf_token') ?? '', return_to: valueOf(form, 'return_to') ?? '/' };
    const options = await postJson('/login/passkey/options', base);
    // The page's own words, for its step (a login, or its second step), also when the server sent none
    // (no JSON: a network failure, a proxy's error page).
    const messages = { ...options.data.messages };
    if (form.dataset.passkeyFailed) messages.failed = form.dataset.passkeyFailed;
    if (form.dataset.passkeyCancelled) messages.cancelled = form.dataset.passkeyCancelled;
    if (!options.ok || !options.data.options) {
      if (!useBrowserAutofill) showError(form, options.data.error ?? messages.failed);
      return;
    }
    let response;
    try {
      response = await startAuthentication({ optionsJSON: options.data.options, useBrowserAutofill });
    } catch (error) {
      // A ceremony replaced by another (the button pressed while autofill waited) ends quietly.
      if (error && error.name === 'AbortError') return;
      if (!useBrowserAutofill) showError(form, messages.cancelled);
      return;
    }
    const remember = form.elements.namedItem('remember');
    const result = await postJson(endpoint, { ...base, remember: Boolean(remember && remember.checked), response });
    if (result.ok && isLocalPath(result.data.location)) {
      window.location.assign(result.data.location);
      return;
    }
    showError(form, result.data.error ?? messages.failed);
  }

  function start() {
    if (!browserSupportsWebAuthn()) {
      // Where a passkey is the way on (the second step), say why there is no button.
      for (const notice of document.querySelectorAll('[data-passkey-unsupported]')) notice.hidden = false;
      return;
    }
    for (const choice of document.querySelectorAll('[data-passkey-login-choice]')) choice.hidden = false;
    for (const button of document.querySelectorAll('button[data-passkey-login]')) {
      const form = button.closest('form');
      if (!form) continue;
      button.hidden = false;
      // The only way on (a second step with passkeys alone): `autofocus` did nothing while it was hidden.
      if (button.hasAttribute('autofocus')) button.focus();
      const named = button.getAttribute('data-passkey-login');
      const endpoint = named && isLocalPath(named) ? named : '/login/passkey';
      button.addEventListener('click', (event) => {
        event.preventDefault();
        void signIn(form, false, endpoint);
      });
    }
    const autofill = document.querySelector('input[autocomplete~="webauthn"]');
    if (autofill && autofill.form) {
      void browserSupportsWebAuthnAutofill().then((supported) => {
        if (supported) void signIn(autofill.form, true, '/login/passkey');
      });
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
