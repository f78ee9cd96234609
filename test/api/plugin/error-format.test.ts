/**
 * SPEC §7: every error answer under /api is application/problem+json — also
 * those of the Swagger UI's static files and those Node's HTTP parser gives
 * before Fastify sees the request (unknown method, raw non-ASCII bytes).
 */
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/fixture.ts';

const t = useTestApp();
let port: number;

beforeAll(async () => {
  port = Number(new URL(await t.listen()).port);
});

interface RawResponse { statusLine: string; headers: Record<string, string>; body: string }

/** Sends bytes as they are (no client library would send these) and reads the answer until the server closes. */
function sendRaw(bytes: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ statusLine, headers, body });
    });
  });
}

const requestLine = (line: Buffer | string) => Buffer.concat([Buffer.from(line), Buffer.from(' HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')]);

describe('Swagger UI under /api/doc', () => {
  it('still serves the page and its files', async () => {
    const page = await t.app.inject({ url: '/api/doc' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const css = await t.app.inject({ url: '/api/doc/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });

  it.each([
    ['a missing file', '/api/doc/static/nothing', 404, 'request.not-found'],
    ['a path out of the directory', '/api/doc/static/%2e%2e/%2e%2e/package.json', 403, 'request.forbidden'],
    ['a NUL byte', '/api/doc/static/%00', 400, 'request.invalid'],
  ])('answers %s with problem+json', async (_label, url, status, code) => {
    // Over a real socket: inject() would resolve the dot segments before routing.
    const response = await sendRaw(requestLine(`GET ${url}`));
    expect(response.statusLine.split(' ')[1]).toBe(String(status));
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(response.body)).toMatchObject({ status, code });
    expect(response.body).not.toContain('foodsharing-auth');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('requests the HTTP parser refuses', () => {
  it.each([
    ['an unknown method', requestLine('FOO /api/baskets/1'), 'The request method is not an HTTP method.'],
    ['raw non-ASCII bytes in the path', requestLine(Buffer.concat([Buffer.from('GET /api/baskets/'), Buffer.from([0xc3, 0xa4])])),
      'The request target is not a valid URL (percent-encode non-ASCII characters).'],
    ['an unknown method on an absolute URL', requestLine('FOO http://localhost/api?x=1'), 'The request method is not an HTTP method.'],
  ])('answer %s under /api with 400 problem+json', async (_label, bytes, detail) => {
    const response = await sendRaw(bytes);
    expect(response.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.connection).toBe('close');
    // No hook runs for them: the answer carries the JSON routes' security headers itself.
    expect(response.headers).toMatchObject({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'", 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer',
    });
    expect(JSON.parse(response.body)).toEqual({ type: 'about:blank', title: 'Bad Request', status: 400, detail, code: 'request.invalid' });
  });

  it('answers 431 problem+json for headers that are too large', async () => {
    const bytes = Buffer.from(`GET /api/baskets/1 HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const response = await sendRaw(bytes);
    expect(response.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(response.body)).toMatchObject({ status: 431, code: 'request.headers-too-large' });
  });

  it('keeps plain JSON outside /api', async () => {
    for (const bytes of [requestLine('FOO /login'), requestLine('FOO /apix')]) {
      const response = await sendRaw(bytes);
      expect(response.statusLine).toBe('HTTP/1.1 400 Bad Request');
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(response.body)).toEqual({ error: 'Bad Request', message: 'The request method is not an HTTP method.', statusCode: 400 });
    }
  });
});
