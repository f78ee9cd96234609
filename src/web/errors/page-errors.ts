/**
 * Error view for everything outside `/api` and the OAuth JSON endpoints: a page, or, for a request
 * with a JSON body (the passkey ceremonies' endpoints, which answer `{error}`), the same message as JSON.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { classifyFailure, logFailure } from '../../http/failures.ts';

export function installPageErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => reply.render('error', { message: reply.translator()('error.404') }, 404));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = error.validation ? { status: 400, message: '', isServerFault: false } : classifyFailure(error);
    logFailure(request.log, error, failure);
    const t = reply.translator();
    const key = `error.${failure.status}`;
    const message = t(key) === key ? t(failure.status >= 500 ? 'error.500' : 'error.400') : t(key);
    const requestId = failure.isServerFault ? request.id : undefined;
    if (hasJsonBody(request)) return reply.code(failure.status).header('cache-control', 'no-store').send({ error: message, ...(requestId ? { requestId } : {}) });
    return reply.render('error', { message, requestId }, failure.status);
  });
}

/** Whether the request sent JSON (`application/json`, with or without parameters). */
function hasJsonBody(request: FastifyRequest): boolean {
  return /^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '');
}
