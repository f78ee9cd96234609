/**
 * What an OAuth endpoint tells operators about a refusal it answers (docs/
 * security-events.md). The client cache may run a request twice (a refusal on
 * a cached client is decided again on a fresh read): the security events of
 * both runs are collected, since what the first run did (revoking a token
 * family) stays done, and each distinct event is logged once.
 */
import type { FastifyRequest } from 'fastify';
import { logSecurityEvent, type SecurityEvent } from '../../ops/security-events.ts';
import { InvalidClient, OAuthError } from '../errors.ts';

export class Refusals {
  private readonly events = new Map<string, SecurityEvent>();

  /** Notes the event a refusal carries, then lets it go on (`promise.catch(refusals.note)`). */
  readonly note = (error: unknown): never => {
    this.remember(error);
    throw error;
  };

  /** Logs the events noted and those of the final refusal; a failed client authentication is one too. */
  log(request: FastifyRequest, error: unknown): void {
    if (!(error instanceof OAuthError)) return;
    this.remember(error);
    for (const event of this.events.values()) logSecurityEvent(request.events, event);
    if (error instanceof InvalidClient) {
      logSecurityEvent(request.events, {
        event: 'oauth.client.authentication_failed', clientId: error.clientId, reason: error.detail ?? error.description, ip: request.ip,
      });
    } else if (error.detail !== undefined && error.securityEvent === undefined) {
      request.log.info({ error: error.error, detail: error.detail }, 'OAuth request refused');
    }
  }

  private remember(error: unknown): void {
    if (error instanceof OAuthError && error.securityEvent) this.events.set(JSON.stringify(error.securityEvent), error.securityEvent);
  }
}
