/**
 * A broken receiver costs only its own client: with 60 notices of one client
 * whose receiver hangs, another client's receiver gets its notice within 2 s
 * (before, it waited behind batches of the stuck ones, 5 s each: 13.6 s
 * seen); and no answer's body is read (before, a 200 MB reply was drained).
 * Real listening receivers on loopback; the sender runs as main.ts runs it
 * (start()), on the real clock; every wait is on a receiver's event.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_CLIENT_IN_FLIGHT } from '../../src/oauth/backchannel/logout-notices.ts';
import { enqueueLogoutNotices } from '../../src/oauth/backchannel/logout-notices.repository.ts';
import type { TestApp } from '../helpers/app.ts';
import { LogoutReceiver } from '../helpers/logout-receiver.ts';
import { buildListeningApp } from '../helpers/oauth.ts';

let t: TestApp & { issuer: string };
let stuck: LogoutReceiver;
let healthy: LogoutReceiver;
beforeAll(async () => {
  t = await buildListeningApp();
  stuck = await new LogoutReceiver().listen();
  stuck.defaultAnswer = 'hang';
  healthy = await new LogoutReceiver().listen();
  t.app.logoutNotices.start(1000); // as main.ts does with the default BACKCHANNEL_LOGOUT_POLL_SECONDS
});
afterAll(async () => {
  stuck.release();
  await t.close(); // stops the sender, waiting for its attempts
  await stuck.close();
  await healthy.close();
});

const stateOf = async (sid: string) => (await t.db.selectFrom('oauth_logout_notices').select('state').where('sid', '=', sid).executeTakeFirstOrThrow()).state;

describe('one client\'s receiver that hangs', () => {
  it('holds up no other client: a healthy receiver gets its notice within 2 s', async () => {
    const now = new Date();
    await enqueueLogoutNotices(t.db, Array.from({ length: 60 }, (_, i) => ({ clientId: 'stuck-app', backchannelLogoutUri: stuck.url, sub: '7', sid: `stuck-${i}` })), now);
    await stuck.waitForRequests(PER_CLIENT_IN_FLIGHT);

    const queuedAt = performance.now();
    await enqueueLogoutNotices(t.db, [{ clientId: 'healthy-app', backchannelLogoutUri: healthy.url, sub: '8', sid: 'healthy-1' }], new Date());
    await healthy.waitForRequests(1);
    const waitedMs = performance.now() - queuedAt;

    expect(waitedMs).toBeLessThan(2000);
    // The stuck client had its share under way, no more.
    expect(stuck.received).toHaveLength(PER_CLIENT_IN_FLIGHT);
    await expect.poll(() => stateOf('healthy-1')).toBe('sent');
  }, 60_000);
});

describe('an answer with a huge body', () => {
  let server: Server;
  let written = 0;
  let closed: Promise<unknown>;
  beforeAll(async () => {
    // A receiver answering 200 and then up to 200 MB, as fast as the socket takes it.
    server = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      closed = once(response, 'close');
      const pump = () => {
        while (written < 200 * 1024 * 1024 && !response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return response.once('drain', pump);
        }
        return response.end();
      };
      pump();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('counts as delivered by its status, and the connection is closed without reading the body', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/logout`;
    await enqueueLogoutNotices(t.db, [{ clientId: 'chatty-app', backchannelLogoutUri: url, sub: '9', sid: 'chatty-1' }], new Date());
    await expect.poll(() => stateOf('chatty-1'), { timeout: 30_000, interval: 100 }).toBe('sent');
    await closed;
    // What the kernel's socket buffers took before the close, not the 200 MB.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  }, 60_000);
});
