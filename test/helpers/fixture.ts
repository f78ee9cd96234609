/**
 * One test file's application, built and torn down by the fixture itself:
 * `const t = useTestApp()` at the top of a file builds the real app on a
 * fresh database before the file's first test (before the file's own
 * `beforeAll` hooks, which run in the order they were declared) and closes
 * app and database after its last. `t.as('orga')` gives a logged-in user of
 * a role; `t.call(…)` sends one request. Meant for every suite (`/api`,
 * OAuth, pages), not only `/api`'s.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import type { RoleName } from '../../src/accounts/roles.ts';
import { call, type Method } from './api.ts';
import { buildTestApp, type AppUnderTest, type TestApp, type TestAppOptions } from './app.ts';
import { makeUser, type TestUser } from './factories.ts';
import { buildListeningApp } from './oauth.ts';
import { logInAs, type TestSession } from './session.ts';

/** A user of a role, logged in: their session's headers and the user. */
export interface LoggedIn extends TestSession { readonly user: TestUser }

export interface AsOptions {
  regionIds?: number[];
  ambassadorOf?: number[];
  verified?: boolean;
  firstName?: string;
  /** A long-lived session, for tests that move the clock by days. */
  rememberMe?: boolean;
}

export interface AppFixture extends AppUnderTest {
  /** A new user with this role (and memberships), logged in through `POST /api/user/login`. */
  as(role: RoleName, options?: AsOptions): Promise<LoggedIn>;
  /** Logs an existing user in (a demo account, a user made by a factory). */
  logIn(user: { email: string; password: string }, rememberMe?: boolean): Promise<TestSession>;
  /** One request through `inject()`, as `session` or anonymous (helpers/api.ts `call`). */
  call(method: Method | string, url: string, session?: TestSession | null, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export interface FixtureOptions extends TestAppOptions {
  /** Serve on real HTTP from the start, PUBLIC_URL (the issuer) being its own address (helpers/oauth.ts `buildListeningApp`). */
  listening?: boolean;
}

/**
 * `options` may be a function, read when the app is built: for settings known
 * only once an earlier `beforeAll` ran (the port of a server the app talks to).
 */
export function useTestApp(options: FixtureOptions | (() => FixtureOptions) = {}): AppFixture {
  let built: TestApp | undefined;
  beforeAll(async () => {
    const { listening = false, ...appOptions } = typeof options === 'function' ? options() : options;
    built = await (listening ? buildListeningApp(appOptions) : buildTestApp(appOptions));
  });
  afterAll(async () => {
    await built?.close();
  });
  const get = (): TestApp => {
    if (!built) throw new Error('useTestApp(): the app exists inside hooks and tests only');
    return built;
  };
  return {
    get app() { return get().app; },
    get db() { return get().db; },
    get config() { return get().config; },
    get keys() { return get().keys; },
    get clock() { return get().clock; },
    get baseUrl() { return get().baseUrl; },
    listen: () => get().listen(),
    async as(role, { rememberMe = false, ...user } = {}) {
      const made = await makeUser(get().db, { role, ...user });
      return { ...(await logInAs(get().app, made, rememberMe)), user: made };
    },
    logIn: (user, rememberMe = false) => logInAs(get().app, user, rememberMe),
    call: (method, url, session, payload, headers) => call(get().app, method, url, session, payload, headers),
  };
}
