/**
 * What guards logins, built once per app: the device-cookie key and the
 * failed-login counters — in PostgreSQL, or in Redis when `REDIS_URL` is set.
 */
import type { KeyObject } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Executor } from '../db/executor.ts';
import { databaseAttemptCounters, type AttemptCounters } from './login-attempt-counters.ts';
import type { LoginGuard } from './login.service.ts';

export interface OpenLoginGuard {
  readonly guard: LoginGuard;
  /** With the counters in Redis: whether it answers (for `/ready`, which pings the database itself). */
  readonly redisPing: (() => Promise<void>) | undefined;
  close(): void;
}

/** ioredis (about 0.06 s of CPU to load) is loaded only when `REDIS_URL` is set. */
export async function openLoginGuard(config: Config, db: Executor, deviceKey: KeyObject, log: FastifyBaseLogger, attempts?: AttemptCounters): Promise<OpenLoginGuard> {
  if (config.redisUrl === undefined || attempts !== undefined) {
    return { guard: { deviceKey, attempts: attempts ?? databaseAttemptCounters(db) }, redisPing: undefined, close: () => {} };
  }
  const { connectRedis, redisAttemptCounters } = await import('./login-attempt-counters.redis.ts');
  const redis = connectRedis(config.redisUrl, config.databaseTimeoutSeconds * 1000, (error) => log.warn({ err: error }, 'Redis not reachable'));
  return {
    guard: { deviceKey, attempts: redisAttemptCounters(redis) },
    redisPing: async () => { await redis.ping(); },
    close: () => redis.disconnect(),
  };
}
