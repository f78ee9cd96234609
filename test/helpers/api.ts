/** Requests to `/api` and assertions on its answers, for every `/api` test. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestSession } from './session.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One request through `inject()`: as `session` (its cookie and CSRF token) or
 * anonymous, with a JSON `payload` (an object) or raw text, and extra headers
 * (a `content-type` of the test's choosing, say).
 */
export function call(
  app: FastifyInstance, method: Method | string, url: string, session?: TestSession | null, payload?: unknown, headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: method as Method, url, headers: { ...(session ? session.headers : {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** Asserts a problem+json answer with this status (and code, when given). */
export function expectProblem(response: LightMyRequestResponse, status: number, code?: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json() as { status: number; code: string };
  expect(body.status).toBe(status);
  if (code) expect(body.code).toBe(code);
}

/** Path segments that break `[1-9][0-9]*` or exceed PostgreSQL's integer; each must give 400 or 404, never 500. */
export const BAD_IDS = [
  '0', '-1', 'abc', '1.5', '1e3', '0x10', '01', ' 1', '1%20', '%2e%2e', '..%2f1', '%2e', '1%00', '%00',
  '123456789012345678901234567890', '2147483648', '9999999999', '%F0%9F%98%80', '1;2', '%25', '+1',
];

export function expectKeys(value: unknown, keys: readonly string[]): void {
  expect(Object.keys(value as object).sort()).toEqual([...keys].sort());
}
