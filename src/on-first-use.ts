/**
 * What a library gives, loaded on first use and then kept: the libraries only
 * some requests need (image decoding, mail, passkeys, QR codes, the common
 * password list) stay off the start-up path (docs/performance.md, "Start-up").
 * A load that fails is not tried again: a module missing from the install
 * stays missing.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
}
