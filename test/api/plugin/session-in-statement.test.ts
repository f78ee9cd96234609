/**
 * `sessionInStatement` (route-config.ts, api/actor.ts): what the /api context refuses to register,
 * and that a state change never skips its CSRF check, whichever helper the route calls.
 */
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSessions } from '../../../src/accounts/session-http.ts';
import { createSession } from '../../../src/accounts/sessions.ts';
import { inSessionStatement } from '../../../src/api/actor.ts';
import { installApiContext } from '../../../src/api/plugin/context.ts';
import { systemClock } from '../../../src/clock.ts';
import { loadConfig } from '../../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { makeUser } from '../../helpers/factories.ts';

let database: TestDatabase;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(() => database.drop());

/** An /api context with the one route `register` adds. */
async function apiWith(register: (api: FastifyInstance) => void): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(cookie);
  installSessions(app, loadConfig({ NODE_ENV: 'test' }), database.handle.db, systemClock);
  await app.register(async (api) => {
    installApiContext(api);
    register(api);
  }, { prefix: '/api' });
  return app;
}

describe('routes reading the session in their own statement', () => {
  it('are refused at start without attachValidation, or without a required login', async () => {
    await expect(apiWith((api) => api.get('/x', { config: { auth: 'required', sessionInStatement: true } }, async () => ({}))))
      .rejects.toThrow('GET /api/x: sessionInStatement needs attachValidation');
    await expect(apiWith((api) => api.get('/x', { config: { sessionInStatement: true }, attachValidation: true }, async () => ({}))))
      .rejects.toThrow('GET /api/x: sessionInStatement is for routes that require a login');
  });

  it('a state change through the reading helper still has its CSRF token checked, before the route runs', async () => {
    const app = await apiWith((api) => api.post('/x', { config: { auth: 'required', sessionInStatement: true }, attachValidation: true },
      async (request) => inSessionStatement(request, systemClock, async () => ({ path: 'statement' }), async () => ({ path: 'ordinary' }))));
    try {
      const user = await makeUser(database.handle.db);
      const session = await createSession(database.handle.db, systemClock, user.id, false);
      const send = (token: string) => app.inject({ method: 'POST', url: '/api/x', headers: { cookie: `fs_session=${session.id}`, 'x-csrf-token': token } });
      const wrong = await send('wrong');
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json().code).toBe('auth.csrf-invalid');
      const right = await send(session.csrfToken);
      expect(right.statusCode).toBe(200);
      expect(right.json()).toEqual({ path: 'ordinary' });
    } finally {
      await app.close();
    }
  });
});
