/**
 * A client's jwks_uri as assertions use it: one fetch at a time per client, however many
 * assertions arrive while it is under way (each could be anyone's, naming the client).
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { noticeTargetPolicy } from '../backchannel/notice-target.ts';
import { ClientJwks } from './client-jwks.ts';
import type { ClientRow } from './clients.repository.ts';

const key = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k' };
let fetches = 0;
const held: ServerResponse[] = [];
const server = createServer((_request, response) => {
  fetches += 1;
  held.push(response);
});
let uri: string;

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function release(status: number): void {
  for (const response of held.splice(0)) {
    if (status === 200) response.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [key] }));
    else response.writeHead(status).end();
  }
}

describe('ClientJwks', () => {
  test('assertions arriving while a fetch is under way wait for it: one fetch, one outcome for all', async () => {
    let now = 0;
    const jwks = new ClientJwks(noticeTargetPolicy(false), () => now);
    const client = { client_id: 'c', jwks: null, jwks_uri: uri } as unknown as ClientRow;
    const waiting = Array.from({ length: 20 }, () => jwks.keysOf(client));
    while (fetches < 1) await new Promise((resolve) => setImmediate(resolve));
    release(200);
    expect((await Promise.all(waiting)).every((keys) => typeof keys === 'function')).toBe(true);
    expect(fetches).toBe(1);

    // The set's five minutes over and the key host failing: one fetch again, the last set standing in for all.
    now += 301_000;
    const during = Array.from({ length: 10 }, () => jwks.keysOf(client));
    while (fetches < 2) await new Promise((resolve) => setImmediate(resolve));
    release(503);
    expect((await Promise.all(during)).every((keys) => typeof keys === 'function')).toBe(true);
    expect(fetches).toBe(2);
  });
});
