/**
 * How `/api` reads request bodies: JSON only (SPEC-API). A form or text body is
 * what a cross-site HTML form can send without a preflight: accepted, it would
 * allow login CSRF, so it is a 415 like every other media type.
 *
 * A JSON text that gives a name twice in one object, or escapes half a
 * surrogate pair, is refused too (http/json-text.ts): `JSON.parse` would keep
 * the last value, or store U+FFFD.
 *
 * Where a body is refused depends on the route. SPEC-API puts "invalid body →
 * 400" after 404 and 403, so on routes that check their input late
 * (`attachValidation`) a syntax error or an unsupported media type is only
 * recorded here and reported by `assertValidInput()` (validation-order.ts);
 * elsewhere it answers at once. A body over the size limit is cut off before
 * any parser runs (413), whatever the route.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonTextProblem, type JsonTextProblem } from '../../http/json-text.ts';
import { ApiProblem } from './problem.ts';
import { deferBodyFailure } from './validation-order.ts';

type Done = (error: Error | null, body?: unknown) => void;

export function installApiBodyParsers(api: FastifyInstance): void {
  // Both are what a cross-site form sends without a preflight; a text/plain body would also reach,
  // as a string, an operation that takes no body and so has no schema to refuse it.
  api.removeContentTypeParser(['application/x-www-form-urlencoded', 'text/plain']);
  // Many HTTP clients send `Content-Type: application/json` on every request,
  // a body-less DELETE too: an empty body is no body, not a syntax error.
  const parseJson = api.getDefaultJsonParser('error', 'error');
  api.removeContentTypeParser('application/json');
  api.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    // RFC 8259 §8.1: JSON text is UTF-8. Decoding other bytes would store U+FFFD in their place, unannounced.
    if (!isUtf8(bytes)) return refuseBody(request, done, notUtf8());
    const text = bytes.toString('utf8');
    parseJson(request, text, (error: Error | null, value?: unknown) => {
      if (error) return refuseBody(request, done, isJson(text) ? forbiddenKey() : notJson());
      const strict = jsonTextProblem(text, request.routeOptions.config.halfSurrogatesIn);
      if (strict) refuseBody(request, done, notStrictJson(strict));
      else done(null, value);
    });
  });
  // Every media type without a parser of its own (and a body without any content type). An empty
  // one is no body, as for JSON: `fetch(url, { method: 'POST', body: '' })` labels it text/plain.
  api.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    refuseBody(request, done, unsupportedMediaType());
  });
}

function refuseBody(request: FastifyRequest, done: Done, failure: ApiProblem): void {
  if (request.routeOptions.attachValidation) {
    deferBodyFailure(request, failure);
    done(null, undefined);
  } else {
    done(failure);
  }
}

function notJson(): ApiProblem {
  return new ApiProblem(400, 'request.invalid', 'The request body is not valid JSON.', [{ field: 'body', message: 'is not valid JSON' }]);
}

/**
 * Whether a body Fastify's parser refused is JSON all the same: then it refused a `__proto__` key, or a
 * `constructor` whose value has a `prototype`, which would reach an object's prototype once merged (its
 * error does not say which). `JSON.parse` makes such keys own properties: reading them pollutes nothing.
 */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function forbiddenKey(): ApiProblem {
  return new ApiProblem(400, 'request.invalid', 'The request body must not contain a "__proto__" key, or a "constructor" key with a "prototype".',
    [{ field: 'body', message: 'must not contain "__proto__", or "constructor" with "prototype"' }]);
}

/** A name given twice in one object, or an escape of half a surrogate pair (http/json-text.ts). */
function notStrictJson(problem: JsonTextProblem): ApiProblem {
  const field = `body${problem.pointer}`;
  return problem.kind === 'repeated-name'
    ? new ApiProblem(400, 'request.invalid', 'The request body gives a name twice in one object.', [{ field, message: 'is given more than once' }])
    : new ApiProblem(400, 'request.invalid', 'The request body is not valid Unicode: an escape names half of a surrogate pair.',
      [{ field, message: 'contains half of a surrogate pair (an escape in \\ud800–\\udfff without its other half)' }]);
}

function notUtf8(): ApiProblem {
  return new ApiProblem(400, 'request.invalid', 'The request body is not valid UTF-8.', [{ field: 'body', message: 'is not valid UTF-8' }]);
}

function unsupportedMediaType(): ApiProblem {
  return new ApiProblem(415, 'request.unsupported-media-type', 'Unsupported content type: send JSON with Content-Type: application/json.');
}
