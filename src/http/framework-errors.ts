/**
 * Errors Fastify raises before routing (a malformed URL, an over-long path
 * segment): answered in the vocabulary of where the request was going, as
 * 400 — "a path parameter breaking its pattern answers 400" (SPEC §7). No
 * hook runs for them, so the answer sets its security headers itself: the
 * short set (security-headers.ts), as nothing in it is a page.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { PrefixErrorWording } from './prefix-errors.ts';
import type { SecurityHeaders } from './security-headers.ts';

const MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'The URL is malformed.',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long.',
};

type FrameworkErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;

/** Fastify's `frameworkErrors`: plain text, or `prefixed`'s wording for a URL under its prefix. */
export function frameworkErrorHandler(prefixed: PrefixErrorWording, headers: SecurityHeaders): FrameworkErrorHandler {
  return (error, request, reply) => {
    void reply.headers(headers.json).header('x-request-id', request.id);
    const detail = MESSAGES[error.code];
    if (detail === undefined) {
      request.log.error({ err: error }, 'routing failed');
      void reply.code(500).type('text/plain; charset=utf-8').send('Internal Server Error');
      return;
    }
    if (request.url.startsWith(`${prefixed.prefix}/`) || request.url === prefixed.prefix) {
      void reply.code(400).type(prefixed.contentType).send(prefixed.body(400, detail));
      return;
    }
    void reply.code(400).type('text/plain; charset=utf-8').send(detail);
  };
}
