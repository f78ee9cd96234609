/**
 * A client application's redirect URI for browser tests: a tiny local HTTP
 * server that records every authorization response it receives.
 */
import { createServer, type Server } from 'node:http';

export interface CallbackServer {
  /** `http://127.0.0.1:<port>/callback` */
  readonly redirectUri: string;
  /** Query parameters of each request to /callback, oldest first. */
  readonly received: URLSearchParams[];
  /** The parameters of the next response to arrive (or the one already waiting). */
  next(): Promise<URLSearchParams>;
  /**
   * Serves `html` as the client application's own page at `path`; the URL on
   * `localhost`, which is another site than the `127.0.0.1` the server under test uses.
   */
  servePage(path: string, html: string): string;
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URLSearchParams[] = [];
  let taken = 0;
  const waiters: ((params: URLSearchParams) => void)[] = [];
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const page = pages.get(url.pathname);
    if (page !== undefined) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    received.push(url.searchParams);
    waiters.shift()?.(url.searchParams);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Client app</title><h1>Callback received</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    received,
    servePage(path, html) {
      pages.set(path, html);
      return `http://localhost:${port}${path}`;
    },
    next() {
      if (taken < received.length) return Promise.resolve(received[taken++] as URLSearchParams);
      return new Promise((resolve) => {
        waiters.push((params) => {
          taken += 1;
          resolve(params);
        });
      });
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
