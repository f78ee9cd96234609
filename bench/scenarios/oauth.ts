/**
 * The OAuth scenarios both servers have — code exchange, refresh grant,
 * userinfo, discovery, JWKS — over an {@link OAuthTarget}: ours or the peer.
 */
import { createHash } from 'node:crypto';
import type autocannon from 'autocannon';
import { check, checkDiscovery, checkJwks, checkTokenResponse, checkUserinfo, CheckFailed, type Issuer, type TokenResponse } from '../checks.ts';
import type { Child } from '../child-process.ts';
import { runLoad } from '../load.ts';
import { form, FORM, send, type Scenario } from './scenario.ts';

export const NONCE = 'bench-nonce-4f1c2a';
export const STATE = 'bench-state';
export const CODE_VERIFIER = 'bench-code-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';
export const CODE_CHALLENGE = createHash('sha256').update(CODE_VERIFIER).digest('base64url');

export interface OAuthTarget {
  /** Prefix of scenario names ('' for ours, 'peer: ' for oidc-provider). */
  readonly prefix: string;
  readonly child: Child;
  readonly issuer: Issuer;
  readonly clientSecret: string;
  readonly redirectUri: string;
  /** Paths on the child. */
  readonly tokenPath: string;
  readonly userinfoPath: string;
  readonly discoveryPath: string;
  readonly jwksPath: string;
  /** The email userinfo must return. */
  readonly email: string;
  /** Codes for client, redirect URI, CODE_CHALLENGE and NONCE, each usable once. */
  mintCodes(count: number): Promise<string[]>;
}

export interface LoadOptions {
  connections: number;
  /** Seconds of a timed run: a short run (the CI's smoke form) needs a smaller warm-up. */
  duration: number;
}

const tokenHeaders = { 'content-type': FORM };

export function codeBody(t: OAuthTarget, code: string): string {
  return form({
    grant_type: 'authorization_code', code, redirect_uri: t.redirectUri, code_verifier: CODE_VERIFIER,
    client_id: t.issuer.clientId, client_secret: t.clientSecret,
  });
}

export function refreshBody(t: OAuthTarget, refreshToken: string): string {
  return form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: t.issuer.clientId, client_secret: t.clientSecret });
}

async function exchange(t: OAuthTarget, code: string): Promise<{ tokens: TokenResponse; sub: string }> {
  const r = await send(t.child.url + t.tokenPath, { method: 'POST', headers: tokenHeaders, body: codeBody(t, code) });
  const { tokens, idClaims } = await checkTokenResponse(t.issuer, r.status, r.text, { nonce: NONCE, refreshToken: true });
  return { tokens, sub: idClaims.sub! };
}

/** Exchanges many codes at once (chains for the refresh grant, tokens for userinfo). */
async function exchangeMany(t: OAuthTarget, count: number): Promise<TokenResponse[]> {
  const codes = await t.mintCodes(count);
  const out: TokenResponse[] = [];
  for (let i = 0; i < codes.length; i += 16) {
    const batch = await Promise.all(codes.slice(i, i + 16).map(async (code) => {
      const r = await send(t.child.url + t.tokenPath, { method: 'POST', headers: tokenHeaders, body: codeBody(t, code) });
      check(r.status === 200, `exchanging a fresh code answered ${r.status}: ${r.text.slice(0, 200)}`);
      return JSON.parse(r.text) as TokenResponse;
    }));
    out.push(...batch);
  }
  return out;
}

export function exchangeScenario(t: OAuthTarget, o: LoadOptions): Scenario {
  let rate = 0;
  const notes: string[] = [];
  const load = (codes: string[], duration?: number) => {
    let next = 0;
    return runLoad(t.child.pid, {
      url: t.child.url, connections: o.connections, method: 'POST', path: t.tokenPath, headers: tokenHeaders,
      amount: codes.length, ...(duration !== undefined ? { duration } : {}),
      setupRequest: (request) => {
        const code = codes[next++];
        // Never reached: `amount` ends the run when the codes are used up.
        if (code === undefined) throw new CheckFailed('code exchange: out of codes (a code would have been reused)');
        return { ...request, body: codeBody(t, code) };
      },
    });
  };
  return {
    key: t.issuer.alg === 'ES256' ? 'exchange-es256' : 'exchange',
    name: `${t.prefix}code exchange${t.issuer.alg === 'ES256' ? ', ES256 client' : ''}`, unit: 'req/s', pid: t.child.pid, notes,
    async check() {
      const [code] = await t.mintCodes(1);
      await exchange(t, code!);
      // Warm-up, and a first estimate of the rate, to know how many codes a run needs: as many codes
      // as 32 connections exchange in about a second here, fewer before a run shorter than 10 s.
      const pilot = await load(await t.mintCodes(Math.max(100, Math.round(20 * o.connections * Math.min(1, o.duration / 10)))));
      check(pilot.bad === 0, `code exchange warm-up: ${pilot.bad} failed responses (${JSON.stringify(pilot.statuses)})`);
      rate = pilot.rps;
    },
    async run(duration) {
      // Generously more codes than the run can use: a code is never used twice.
      const needed = Math.ceil(Math.max(rate, 100) * 3 * duration) + 4 * o.connections;
      const codes = await t.mintCodes(needed);
      const result = await load(codes, duration);
      rate = Math.max(rate, result.rps);
      if (result.endedEarly) {
        const note = `${t.prefix}code exchange: the ${codes.length} pre-minted codes ran out after ${result.seconds.toFixed(1)} s; rate taken over that time`;
        notes.push(note);
        process.stderr.write(`  WARNING ${note}\n`);
      }
      return result;
    },
  };
}

export function refreshScenario(t: OAuthTarget, o: LoadOptions): Scenario {
  return {
    key: 'refresh', name: `${t.prefix}refresh grant`, unit: 'req/s', pid: t.child.pid, notes: [],
    async check() {
      const [code] = await t.mintCodes(1);
      const first = await exchange(t, code!);
      const previous = first.tokens.refresh_token!;
      const r = await send(t.child.url + t.tokenPath, { method: 'POST', headers: tokenHeaders, body: refreshBody(t, previous) });
      const second = await checkTokenResponse(t.issuer, r.status, r.text, { nonce: NONCE, refreshToken: true, previousRefreshToken: previous });
      check(second.idClaims.sub === first.sub, 'the refreshed ID token names another subject');
      const again = await send(t.child.url + t.tokenPath, { method: 'POST', headers: tokenHeaders, body: refreshBody(t, second.tokens.refresh_token!) });
      check(again.status === 200, `the rotated refresh token does not work: ${again.status} ${again.text.slice(0, 200)}`);
    },
    async run(duration) {
      // One chain per connection, each starting from a code exchange of its own.
      const initial = (await exchangeMany(t, o.connections)).map((r) => r.refresh_token!);
      let next = 0;
      return runLoad(t.child.pid, {
        url: t.child.url, connections: o.connections, duration, method: 'POST', path: t.tokenPath, headers: tokenHeaders,
        body: 'grant_type=refresh_token',
        setupClient: (client: autocannon.Client) => {
          const chain = { token: initial[next++ % initial.length]! };
          client.setRequests([{
            method: 'POST', path: t.tokenPath, headers: tokenHeaders,
            setupRequest: (request) => ({ ...request, body: refreshBody(t, chain.token) }),
            onResponse: (status, body) => {
              if (status !== 200) return;
              const match = /"refresh_token":"([^"]+)"/.exec(body);
              if (match) chain.token = match[1]!;
            },
          }]);
        },
      });
    },
  };
}

export function userinfoScenario(t: OAuthTarget, o: LoadOptions): Scenario {
  let tokens: string[] = [];
  return {
    key: 'userinfo', name: `${t.prefix}userinfo`, unit: 'req/s', pid: t.child.pid, notes: [],
    async check() {
      const [code] = await t.mintCodes(1);
      const { tokens: sample, sub } = await exchange(t, code!);
      const r = await send(t.child.url + t.userinfoPath, { headers: { authorization: `Bearer ${sample.access_token}` } });
      checkUserinfo(r.status, r.text, { sub, email: t.email });
      tokens = (await exchangeMany(t, 8)).map((x) => x.access_token);
    },
    run(duration) {
      let next = 0;
      return runLoad(t.child.pid, {
        url: t.child.url, connections: o.connections, duration, path: t.userinfoPath,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` } }),
      });
    },
  };
}

export function discoveryScenario(t: OAuthTarget, o: LoadOptions): Scenario {
  return {
    key: 'discovery', name: `${t.prefix}discovery`, unit: 'req/s', pid: t.child.pid, notes: [],
    async check() {
      const r = await send(t.child.url + t.discoveryPath);
      checkDiscovery(r.status, r.text, t.issuer.issuer);
    },
    run: (duration) => runLoad(t.child.pid, { url: t.child.url, connections: o.connections, duration, path: t.discoveryPath }),
  };
}

export function jwksScenario(t: OAuthTarget, o: LoadOptions): Scenario {
  return {
    key: 'jwks', name: `${t.prefix}JWKS`, unit: 'req/s', pid: t.child.pid, notes: [],
    async check() {
      const r = await send(t.child.url + t.jwksPath);
      checkJwks(r.status, r.text);
    },
    run: (duration) => runLoad(t.child.pid, { url: t.child.url, connections: o.connections, duration, path: t.jwksPath }),
  };
}

/** Discovery of a target: the paths of its endpoints. */
export async function discover(baseUrl: string): Promise<{ tokenPath: string; userinfoPath: string; jwksUri: string; authorizePath: string; issuer: string }> {
  const r = await send(`${baseUrl}/.well-known/openid-configuration`);
  const doc = checkDiscovery(r.status, r.text, baseUrl);
  const path = (field: string) => new URL(String(doc[field])).pathname;
  return {
    issuer: String(doc.issuer), tokenPath: path('token_endpoint'), userinfoPath: path('userinfo_endpoint'),
    jwksUri: String(doc.jwks_uri), authorizePath: path('authorization_endpoint'),
  };
}
