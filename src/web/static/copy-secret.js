// The copy button of the page that shows a client secret once
// (admin-client-secret.eta). A static file: the pages' Content-Security-Policy
// (script-src 'self') refuses inline scripts. Without this script the button
// stays hidden and the read-only field is there to select by hand.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  if (!(field instanceof HTMLInputElement) || !status) continue;

  // Emptied first, so that saying the same twice is announced twice.
  const say = (text) => {
    status.textContent = '';
    setTimeout(() => { status.textContent = text; }, 100);
  };

  // Where the clipboard is refused or missing (no secure context, a denied
  // permission): the secret selected in its field, for the keyboard to copy.
  const selectForKeyboard = () => {
    field.focus();
    field.setSelectionRange(0, field.value.length);
    say(button.dataset.fallback);
  };

  button.addEventListener('click', () => {
    if (!navigator.clipboard || typeof navigator.clipboard.writeText !== 'function') {
      selectForKeyboard();
      return;
    }
    navigator.clipboard.writeText(field.value).then(() => say(button.dataset.copied), selectForKeyboard);
  });
  button.hidden = false;
}
