/** A login step refused by the attempt limits (accounts/login-throttle.ts), as every login page answers it. */
import type { FastifyReply } from 'fastify';
import { minutesToWait, type LoginThrottled } from '../../accounts/login.service.ts';

/** Sets `Retry-After` (the exact seconds) and gives the message, which says the whole minutes to wait. */
export function throttledMessage(reply: FastifyReply, error: LoginThrottled): string {
  void reply.header('retry-after', String(error.retryAfterSeconds));
  // One minute takes `login.throttled.one` (i18n.ts chooses the form).
  return reply.translator()('login.throttled', { minutes: minutesToWait(error.retryAfterSeconds) });
}
