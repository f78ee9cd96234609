/**
 * The failed-login counters in Redis (`REDIS_URL`), shared by every instance
 * that points at the same Redis: the rules of login-attempt-counters.ts, each
 * step one Lua script, so that Redis runs it atomically. A counter is a hash
 * (`f`: attempts counted, `e`: when it is forgotten, in ms) that expires when
 * it is forgotten: nothing to purge.
 *
 * Redis that cannot be reached fails the login as the database would: 503.
 */
import { Redis } from 'ioredis';
import { DatabaseUnavailableError } from '../db/unavailable.ts';
import { FORGET_SECONDS, type AttemptCounters, type DelayPolicy, type Reservation } from './login-attempt-counters.ts';

export const REDIS_KEY_PREFIX = 'foodsharing:login-throttle:';

// ARGV: now (ms), forget (ms), free failures, base delay (s), max delay (s).
// Returns {seconds to wait} when refused, else {0, the end before (0: none), the end now}.
const RESERVE = `
local now, forget = tonumber(ARGV[1]), tonumber(ARGV[2])
local free, base, max = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local row = redis.call('HMGET', KEYS[1], 'f', 'e')
local failures, ends = tonumber(row[1]), tonumber(row[2])
if failures == nil or ends == nil or ends <= now then
  failures, ends = 0, 0
elseif failures >= free then
  local allowedAt = ends - forget + math.min(max, base * 2 ^ math.min(failures - free, 30)) * 1000
  if allowedAt > now then return {math.max(1, math.ceil((allowedAt - now) / 1000))} end
end
local previous = ends
ends = math.max(ends, now + forget)
redis.call('HSET', KEYS[1], 'f', failures + 1, 'e', ends)
redis.call('PEXPIREAT', KEYS[1], ends)
return {0, previous, ends}`;

// ARGV: the end the attempt set, the end before it (0: none). As login-attempt-counters.ts giveBack.
const GIVE_BACK = `
local row = redis.call('HMGET', KEYS[1], 'f', 'e')
local failures, ends = tonumber(row[1]), tonumber(row[2])
if failures == nil or ends == nil then return 0 end
local set, previous = tonumber(ARGV[1]), tonumber(ARGV[2])
if ends == set then
  if previous > 0 then ends = previous elseif failures <= 1 then redis.call('DEL', KEYS[1]) return 0 end
end
redis.call('HSET', KEYS[1], 'f', math.max(failures - 1, 0), 'e', ends)
redis.call('PEXPIREAT', KEYS[1], ends)
return 0`;

export function redisAttemptCounters(redis: Redis, prefix = REDIS_KEY_PREFIX): AttemptCounters {
  const run = <T>(command: Promise<T>): Promise<T> =>
    command.catch((error: unknown) => { throw new DatabaseUnavailableError(error instanceof Error ? error : new Error(String(error)), 'redis'); });
  return {
    async reserve(key: string, policy: DelayPolicy, now: Date): Promise<Reservation> {
      const args = [now.getTime(), FORGET_SECONDS * 1000, policy.free, policy.baseSeconds, policy.maxSeconds];
      const [wait, previous, end] = (await run(redis.eval(RESERVE, 1, prefix + key, ...args)) as number[]).map(Number);
      if (wait! > 0) return { counted: false, wait: wait! };
      return { counted: true, previousEnd: previous! > 0 ? new Date(previous!) : null, end: new Date(end!) };
    },
    async giveBack(key, counted) {
      await run(redis.eval(GIVE_BACK, 1, prefix + key, counted.end.getTime(), counted.previousEnd?.getTime() ?? 0));
    },
    async clear(key: string) {
      await run(redis.del(prefix + key));
    },
  };
}

/**
 * A connection that never makes a login wait long: a command not answered
 * within `timeoutMs` (Redis silent or still connecting) fails, and so does one
 * issued while the connection is down after one reconnection attempt.
 */
export function connectRedis(url: string, timeoutMs: number, onError: (error: Error) => void): Redis {
  const redis = new Redis(url, { commandTimeout: timeoutMs, connectTimeout: timeoutMs, maxRetriesPerRequest: 1 });
  let reported = false; // one log line per outage, not one per reconnection attempt
  redis.on('error', (error: Error) => { if (!reported) onError(error); reported = true; });
  redis.on('ready', () => { reported = false; });
  return redis;
}
