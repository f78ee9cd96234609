/**
 * A request that still reaches a closing server (pipelined on a connection
 * that was busy when the close began) gets its door's own 503 — problem+json
 * under /api, the OAuth error at the token endpoint — with `Connection:
 * close`, not Fastify's bare JSON; the request that was under way is answered
 * as usual, and the close then ends.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp | undefined;
afterAll(async () => {
  await t?.close();
});

/** Everything the server sends on `socket` until it closes it. */
function received(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => { text += chunk; });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** Each response of a raw HTTP/1.1 stream: status, headers (lower-case names) and body. */
function responses(stream: string): { status: number; headers: Record<string, string>; body: string }[] {
  const found: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = stream;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    found.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return found;
}

/** A connection whose token request is still sending its body: busy when the close begins. */
async function busyConnection(port: number, host: string) {
  const socket = connect(port, host);
  await new Promise((resolve) => socket.once('connect', resolve));
  const all = received(socket);
  socket.write(`POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${TOKEN_BODY.length}\r\n\r\n${TOKEN_BODY.slice(0, 10)}`);
  return {
    /** The rest of the body, then `next` pipelined behind it; every response until the server closes the connection. */
    finish: (next: string) => {
      socket.write(`${TOKEN_BODY.slice(10)}${next}`);
      return all.then(responses);
    },
  };
}

const TOKEN_BODY = 'grant_type=refresh_token&refresh_token=x&client_id=nobody';

describe('a request that reaches a closing server', () => {
  it('gets its door\'s 503 with Connection: close; the request under way is answered; the close ends', async () => {
    t = await buildTestApp();
    const address = new URL(await t.listen());
    // Node's server emits `request` once a request's head is read: both are under way before the close begins.
    let heads = 0;
    const allUnderWay = new Promise<void>((resolve) => t!.app.server.on('request', () => { heads += 1; if (heads === 3) resolve(); }));
    const [forApi, forOAuth, forPage] = [
      await busyConnection(Number(address.port), address.hostname), await busyConnection(Number(address.port), address.hostname),
      await busyConnection(Number(address.port), address.hostname),
    ];
    await allUnderWay;
    const closed = t.app.close();
    const [apiAnswers, oauthAnswers, pageAnswers] = await Promise.all([
      forApi.finish('GET /api/user/current HTTP/1.1\r\nHost: localhost\r\n\r\n'),
      forOAuth.finish(`POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${TOKEN_BODY.length}\r\n\r\n${TOKEN_BODY}`),
      // A page's error view is rendered for nobody: the session cookie was never parsed.
      forPage.finish('GET /login HTTP/1.1\r\nHost: localhost\r\nAccept-Language: en\r\nCookie: fs_session=x\r\n\r\n'),
    ]);
    await closed;
    for (const answers of [apiAnswers, oauthAnswers, pageAnswers]) {
      expect(answers).toHaveLength(2);
      expect(answers[0]!.status).toBe(401);
      expect(JSON.parse(answers[0]!.body)).toMatchObject({ error: 'invalid_client' });
      expect(answers[1]!.headers.connection).toBe('close');
    }
    expect(apiAnswers[1]).toMatchObject({ status: 503, headers: { 'content-type': 'application/problem+json; charset=utf-8' } });
    expect(JSON.parse(apiAnswers[1]!.body)).toEqual({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'server.unavailable',
      detail: 'The service is temporarily unavailable. Please try again shortly.' });
    expect(oauthAnswers[1]).toMatchObject({ status: 503, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(oauthAnswers[1]!.body)).toMatchObject({ error: 'temporarily_unavailable' });
    expect(pageAnswers[1]).toMatchObject({ status: 503, headers: { 'content-type': 'text/html; charset=utf-8' } });
    expect(pageAnswers[1]!.body).toContain('<html lang="en"');
  });
});

describe('a request under way when the close begins, on a keep-alive connection', () => {
  it('is answered, its connection then ends, and so does the close (not after the keep-alive timeout)', { timeout: 30_000 }, async () => {
    const app = await buildTestApp();
    try {
      const address = new URL(await app.listen());
      const headRead = new Promise<void>((resolve) => app.app.server.once('request', () => resolve()));
      const busy = await busyConnection(Number(address.port), address.hostname);
      await headRead;
      const closed = app.app.close();
      const answers = await busy.finish('');
      expect(answers).toHaveLength(1);
      expect(answers[0]!.status).toBe(401);
      expect(answers[0]!.headers.connection).toBe('keep-alive');
      await closed;
    } finally {
      await app.close();
    }
  });
});
