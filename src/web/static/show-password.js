// "Show password" beside a password field (NIST SP 800-63B §5.1.1.2: offer to
// show the secret as typed, so that a typing error is seen before it is
// sent; OWASP Forgot Password Cheat Sheet: a new password is checked by the
// one who sets it). A toggle button (aria-pressed) whose name stays the same.
// A static file: the pages' Content-Security-Policy (script-src 'self')
// refuses inline scripts. Without this script the button stays hidden.
for (const button of document.querySelectorAll('button[data-show-password]')) {
  const field = document.getElementById(button.dataset.showPassword);
  if (!(field instanceof HTMLInputElement)) continue;
  const show = (shown) => {
    field.type = shown ? 'text' : 'password';
    button.setAttribute('aria-pressed', String(shown));
  };
  button.addEventListener('click', () => show(field.type === 'password'));
  // Sent as a password field, so that the browser offers to save it as one, and shown no longer after.
  field.form?.addEventListener('submit', () => show(false));
  button.hidden = false;
}
