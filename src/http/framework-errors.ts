/**
 * Errors Fastify raises before routing (a malformed URL, an over-long path
 * segment): answered in the vocabulary of where the request was going, as
 * 400 — "a path parameter breaking its pattern answers 400" (SPEC §7).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './api-context.ts';
import { problemBody } from './problem.ts';

const MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'The URL is malformed.',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long.',
};

export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('x-request-id', request.id);
  const detail = MESSAGES[error.code];
  if (detail === undefined) {
    request.log.error({ err: error }, 'routing failed');
    void reply.code(500).type('text/plain; charset=utf-8').send('Internal Server Error');
    return;
  }
  if (request.url.startsWith('/api/') || request.url === '/api') {
    sendProblem(reply, problemBody(400, 'request.invalid', detail));
    return;
  }
  void reply.code(400).type('text/plain; charset=utf-8').send(detail);
}
