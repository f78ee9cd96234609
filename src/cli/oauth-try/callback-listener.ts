/**
 * A one-shot HTTP listener on a loopback redirect URI (RFC 8252 §7.3): waits
 * for the browser's redirect carrying the authorization response, lets the
 * caller answer it with a small page, then closes.
 */
import { createServer, type ServerResponse } from 'node:http';
import { RefusedInput, UsageError } from '../command.ts';

export interface Callback {
  /** The full URL the browser was redirected to. */
  readonly url: URL;
  /** Answers the browser and closes the listener. */
  answer(title: string, message: string): Promise<void>;
}

export interface CallbackListener {
  /** Resolves with the first request to the redirect path carrying `code` or `error`. */
  readonly callback: Promise<Callback>;
  close(): Promise<void>;
}

/** Only `http` on a loopback host can be listened on here. */
export function loopbackAddress(redirectUri: string): { host: string; port: number; path: string } {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    throw new UsageError(`--redirect-uri ${JSON.stringify(redirectUri)} is not a URL`);
  }
  const host = url.hostname === '[::1]' ? '::1' : url.hostname;
  if (url.protocol !== 'http:' || !['127.0.0.1', '::1', 'localhost'].includes(host)) {
    throw new UsageError(`--redirect-uri must be http on 127.0.0.1, [::1] or localhost to be listened on here, got ${redirectUri}`);
  }
  return { host, port: Number(url.port || 80), path: url.pathname };
}

export async function listenForCallback(redirectUri: string, timeoutSeconds: number): Promise<CallbackListener> {
  const { host, port, path } = loopbackAddress(redirectUri);
  let settle!: { resolve(c: Callback): void; reject(e: Error): void };
  const callback = new Promise<Callback>((resolve, reject) => { settle = { resolve, reject }; });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', redirectUri);
    if (request.method !== 'GET' || url.pathname !== path || !(url.searchParams.has('code') || url.searchParams.has('error'))) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not the authorization response.\n');
      return;
    }
    settle.resolve({ url, answer: (title, message) => answer(response, title, message).then(close) });
  });
  const close = () => new Promise<void>((resolve) => {
    clearTimeout(timer);
    server.close(() => resolve());
    server.closeAllConnections();
  });
  const timer = setTimeout(() => {
    settle.reject(new RefusedInput(`no redirect to ${redirectUri} within ${timeoutSeconds} s`));
    void close();
  }, timeoutSeconds * 1000);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === 'EADDRINUSE' ? new RefusedInput(`${host}:${port} is in use: stop what listens there (the redirect URI ${redirectUri} must be free)`) : error);
    });
    server.listen(port, host, resolve);
  });
  return { callback, close };
}

function answer(response: ServerResponse, title: string, message: string): Promise<void> {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const page = `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escape(title)}</title>`
    + `<body style="font-family:sans-serif;max-width:36rem;margin:3rem auto"><h1>${escape(title)}</h1><p>${escape(message)}</p></body></html>`;
  return new Promise((resolve) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' }).end(page, () => resolve());
  });
}
