/**
 * The client admin screen's test setup, shared by the admin-*.test.ts files:
 * the app (one per file), two regions, an orga member and an ambassador
 * logged in, and form helpers for /admin/oauthclients.
 */
import { beforeAll } from 'vitest';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp, type AppFixture } from '../helpers/fixture.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

export type Form = [string, string][];

export interface AdminScreen {
  readonly t: AppFixture;
  /** Set before the file's first test. */
  orga: TestSession;
  ambassador: TestSession;
  berlin: number;
  cologne: number;
  orgaId: number;
  post(url: string, session: TestSession | null, form: Form, headers?: Record<string, string>): ReturnType<AppFixture['app']['inject']>;
  get(url: string, session: TestSession | null, headers?: Record<string, string>): ReturnType<AppFixture['app']['inject']>;
  /** Every field filled, for a confidential client. */
  fullForm(clientId: string, csrf: string): Form;
  secretDigest(clientId: string): Promise<Buffer | null>;
}

export function secretIn(html: string): string | undefined {
  return /id="client-secret" class="secret" value="([^"]+)"/.exec(html)?.[1];
}

export function useAdminScreen(): AdminScreen {
  const t = useTestApp();
  const screen = {
    t,
    post: (url, session, form, headers = {}) => t.app.inject({
      method: 'POST', url, payload: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(session ? { cookie: session.cookie } : {}), ...headers },
    }),
    get: (url, session, headers = {}) => t.app.inject({ url, headers: { ...(session ? { cookie: session.cookie } : {}), ...headers } }),
    fullForm: (clientId, csrf) => [
      ['csrf_token', csrf], ['client_id', clientId], ['name', 'Foodsharing Karte'], ['confidential', '1'],
      ['redirect_uris', 'https://karte.example.org/callback\r\nhttp://127.0.0.1:3000/cb\r\n'],
      ['scopes', 'profile'], ['scopes', 'email'], ['scopes', 'regions'],
      ['grant_types', 'refresh_token'],
      ['required_regions', String(screen.berlin)], ['required_regions', String(screen.cologne)],
    ],
    secretDigest: async (clientId) => (await findClientRow(t.db, clientId))?.secret_digest ?? null,
  } as AdminScreen;
  beforeAll(async () => {
    const germany = await makeRegion(t.db, { name: 'Deutschland', type: 'country' });
    screen.berlin = await makeRegion(t.db, { name: 'Berlin', parentId: germany });
    screen.cologne = await makeRegion(t.db, { name: 'Köln', parentId: germany });
    const orgaUser = await makeUser(t.db, { role: 'orga' });
    screen.orgaId = orgaUser.id;
    screen.orga = await logInAs(t.app, orgaUser);
    screen.ambassador = await logInAs(t.app, await makeUser(t.db, { role: 'ambassador', regionIds: [screen.berlin], ambassadorOf: [screen.berlin] }));
  });
  return screen;
}
