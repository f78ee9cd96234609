/** Error view for everything outside `/api` and the OAuth JSON endpoints. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { classifyFailure, logFailure } from '../../http/failures.ts';

export function installPageErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => reply.render('error', { message: reply.translator()('error.404') }, 404));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = error.validation ? { status: 400, message: '', isServerFault: false } : classifyFailure(error);
    logFailure(request.log, error, failure);
    const t = reply.translator();
    const key = `error.${failure.status}`;
    const message = t(key) === key ? t(failure.status >= 500 ? 'error.500' : 'error.400') : t(key);
    return reply.render('error', { message, requestId: failure.isServerFault ? request.id : undefined }, failure.status);
  });
}
