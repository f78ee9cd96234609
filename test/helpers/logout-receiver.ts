/**
 * A client's back-channel logout endpoint on loopback (a real node:http
 * server), as docs/oauth.md tells client developers to write one: it takes
 * the form parameter `logout_token` and verifies it with jose against the
 * issuer's JWKS — `typ: logout+jwt`, `iss`, `aud`, the back-channel member of
 * `events`, `sub` or `sid`, and no `nonce` (Back-Channel Logout 1.0 §2.6).
 * Tests choose each answer (a status, hanging without one, or a status with
 * a flood of a body) and wait for requests as events, never on the clock.
 */
import { once, EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface ReceivedNotice {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  readonly logoutToken: string;
}

/**
 * A status to answer with; `hang`: never answer (until the test calls `release()`);
 * `{ flood: status }`: answer `status` with a body of {@link FLOOD_BYTES}, written as fast as the client takes it.
 */
export type Answer = number | 'hang' | { readonly flood: number };

export const FLOOD_BYTES = 200 * 1024 * 1024;

/** A flooding answer: the body bytes written before the connection closed (or the body ended). */
export interface Flood {
  written: number;
  readonly closed: Promise<void>;
}

export class LogoutReceiver {
  readonly received: ReceivedNotice[] = [];
  /** Answers for the next requests, in order; afterwards every request gets `defaultAnswer`. */
  readonly answers: Answer[] = [];
  defaultAnswer: Answer = 200;
  readonly floods: Flood[] = [];
  /** The most requests left hanging at once (each stops hanging when answered or when the sender gives up on it). */
  mostHanging = 0;
  url = '';
  private readonly events = new EventEmitter();
  private readonly hanging: ServerResponse[] = [];
  private readonly server = createServer((request, response) => void this.handle(request, response));

  async listen(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/backchannel-logout`;
    return this;
  }

  /** Resolves once `count` requests in all have arrived. */
  async waitForRequests(count: number): Promise<void> {
    while (this.received.length < count) await once(this.events, 'request');
  }

  /** Answers every hanging request with `status`. */
  release(status = 200): void {
    for (const response of this.hanging.splice(0)) response.writeHead(status).end();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of request) body += String(chunk);
    this.received.push({
      method: request.method ?? '', path: request.url ?? '', contentType: request.headers['content-type'],
      logoutToken: new URLSearchParams(body).get('logout_token') ?? '',
    });
    const answer = this.answers.shift() ?? this.defaultAnswer;
    if (answer === 'hang') this.hang(response);
    else if (typeof answer === 'object') this.flood(response, answer.flood);
    else response.writeHead(answer).end();
    this.events.emit('request');
  }

  private hang(response: ServerResponse): void {
    this.hanging.push(response);
    this.mostHanging = Math.max(this.mostHanging, this.hanging.length);
    response.once('close', () => {
      const index = this.hanging.indexOf(response);
      if (index >= 0) this.hanging.splice(index, 1);
    });
  }

  /** Writes the body while the client reads it (backpressure), until it is all written or the connection closes. */
  private flood(response: ServerResponse, status: number): void {
    const flood: Flood = { written: 0, closed: once(response, 'close').then(() => undefined) };
    this.floods.push(flood);
    response.writeHead(status, { 'content-length': String(FLOOD_BYTES) });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const write = (): void => {
      while (flood.written < FLOOD_BYTES && !response.destroyed) {
        flood.written += chunk.byteLength;
        if (!response.write(chunk)) return void response.once('drain', write);
      }
      if (!response.destroyed) response.end();
    };
    write();
  }
}

/** What a client does with a logout token (Back-Channel Logout 1.0 §2.6), with jose; `now`: the test's clock. */
export async function verifyLogoutToken(token: string, issuer: string, clientId: string, now = new Date()): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
  const { payload } = await jwtVerify(token, jwks, {
    issuer, audience: clientId, typ: 'logout+jwt', algorithms: ['RS256'], maxTokenAge: '2 minutes', currentDate: now,
    requiredClaims: ['iat', 'exp', 'jti', 'events'],
  });
  const events = payload.events as Record<string, unknown> | undefined;
  if (typeof events?.[BACKCHANNEL_LOGOUT_EVENT] !== 'object') throw new Error('no back-channel logout event');
  if (payload.sub === undefined && payload.sid === undefined) throw new Error('neither sub nor sid');
  if ('nonce' in payload) throw new Error('a logout token must not carry a nonce');
  return payload;
}
