/**
 * A client's back-channel logout endpoint on loopback (a real node:http
 * server), as docs/oauth.md tells client developers to write one: it takes
 * the form parameter `logout_token` and verifies it with jose against the
 * issuer's JWKS — `typ: logout+jwt`, `iss`, `aud`, the back-channel member of
 * `events`, `sub` or `sid`, and no `nonce` (Back-Channel Logout 1.0 §2.6).
 * Tests choose each answer (a status, or hanging without one) and wait for
 * requests as events, never on the clock.
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

/** A status to answer with, or `hang`: never answer (until the test calls `release()`). */
export type Answer = number | 'hang';

export class LogoutReceiver {
  readonly received: ReceivedNotice[] = [];
  /** Answers for the next requests, in order; afterwards every request gets `defaultAnswer`. */
  readonly answers: Answer[] = [];
  defaultAnswer: Answer = 200;
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
    if (answer === 'hang') this.hanging.push(response);
    else response.writeHead(answer).end();
    this.events.emit('request');
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
