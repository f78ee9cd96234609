/** oidc-provider as an OAuth target: its child process, and codes minted over IPC. */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CheckFailed } from '../checks.ts';
import { freePort, startChild, type Child } from '../child-process.ts';
import { childEnv } from '../server-process.ts';
import { CODE_CHALLENGE, discover, NONCE, type OAuthTarget } from './oauth.ts';

const CLIENT_ID = 'bench-app';
const REDIRECT_URI = 'http://127.0.0.1:3000/callback';

export const PEER_NOTE = 'peer = oidc-provider %VERSION% (in-memory Map adapter, no database): opaque access tokens, so an exchange '
  + 'signs once (the ID token) and userinfo verifies no signature; its ID tokens carry no at_hash; codes are minted through '
  + 'its models (a saved Grant and AuthorizationCode each), not through its authorization endpoint';

export async function startPeer(): Promise<{ child: Child; target: OAuthTarget }> {
  const port = await freePort();
  const secret = randomBytes(32).toString('base64url');
  const child = await startChild({
    name: 'oidc-provider', port, readyPath: '/.well-known/openid-configuration', ipc: true,
    args: [path.join(import.meta.dirname, '..', 'peer', 'oidc-provider.mjs')],
    env: childEnv({ PORT: String(port), CLIENT_ID, CLIENT_SECRET: secret, REDIRECT_URI }),
  });
  const endpoints = await discover(child.url);
  let nextId = 0;
  const mintCodes = (count: number) => new Promise<string[]>((resolve, reject) => {
    const id = ++nextId;
    const onMessage = (message: { id?: number; codes?: string[]; error?: string }) => {
      if (message.id !== id) return;
      child.process.off('message', onMessage);
      if (message.codes) resolve(message.codes);
      else reject(new CheckFailed(`oidc-provider could not mint codes: ${message.error}`));
    };
    child.process.on('message', onMessage);
    child.process.send({ type: 'mint', id, count, codeChallenge: CODE_CHALLENGE, nonce: NONCE });
  });
  const target: OAuthTarget = {
    prefix: 'peer: ', child,
    issuer: { issuer: endpoints.issuer, jwksUri: endpoints.jwksUri, clientId: CLIENT_ID, accessTokenIsJwt: false, requireAtHash: false },
    clientSecret: secret, redirectUri: REDIRECT_URI,
    tokenPath: endpoints.tokenPath, userinfoPath: endpoints.userinfoPath,
    discoveryPath: '/.well-known/openid-configuration', jwksPath: new URL(endpoints.jwksUri).pathname,
    email: 'bench-user@example.org',
    mintCodes,
  };
  return { child, target };
}
