/**
 * Demo OAuth clients (SPEC §9): a confidential server app and a public
 * single-page app, both with loopback redirect URIs. The confidential client's
 * secret is fixed so that README can show a copy-paste flow; the demo dataset
 * is never loaded in production.
 */
import type { Executor } from '../db/executor.ts';
import { createClient } from '../oauth/clients/clients.service.ts';
import type { KeyMaterial } from '../oauth/keys/key-material.ts';

export const DEMO_CLIENT_SECRET = 'demo-app-secret-for-local-testing-only';

/** The demo clients' ids; `demo-app` is the confidential one, with {@link DEMO_CLIENT_SECRET}. */
export const DEMO_CLIENT_IDS = ['demo-app', 'demo-spa'] as const;

export interface DemoOAuthClient {
  clientId: string;
  name: string;
  confidential: boolean;
  /** Only for the confidential demo client. */
  secret: string | null;
  redirectUris: string[];
  /** Where RP-Initiated Logout may send the member back: the same hosts and ports as the redirect URIs. */
  postLogoutRedirectUris: string[];
  scopes: string[];
  grantTypes: string[];
}

export async function loadOAuthDemo(db: Executor, keys: KeyMaterial): Promise<DemoOAuthClient[]> {
  const clients: DemoOAuthClient[] = [
    {
      clientId: 'demo-app', name: 'Demo-App (Server)', confidential: true, secret: DEMO_CLIENT_SECRET,
      redirectUris: ['http://127.0.0.1:3000/callback', 'http://localhost:3000/callback'],
      postLogoutRedirectUris: ['http://127.0.0.1:3000/logged-out', 'http://localhost:3000/logged-out'],
      scopes: ['openid', 'profile', 'email', 'regions'], grantTypes: ['authorization_code', 'refresh_token'],
    },
    {
      clientId: 'demo-spa', name: 'Demo-SPA (Browser)', confidential: false, secret: null,
      redirectUris: ['http://127.0.0.1:5173/callback', 'http://localhost:5173/callback'],
      postLogoutRedirectUris: ['http://127.0.0.1:5173/logged-out', 'http://localhost:5173/logged-out'],
      scopes: ['openid', 'profile', 'email'], grantTypes: ['authorization_code', 'refresh_token'],
    },
  ];
  for (const c of clients) {
    await createClient(db, keys, { ...c, requiredRegions: [] }, c.secret ?? undefined);
  }
  return clients;
}

export function describeOAuthDemo(clients: readonly DemoOAuthClient[]): string[] {
  return clients.map((c) => `OAuth client ${c.clientId.padEnd(9)} ${c.confidential ? `secret ${c.secret}` : 'public (PKCE, no secret)'}  redirect ${c.redirectUris[0]}`);
}
