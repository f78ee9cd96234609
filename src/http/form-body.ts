/**
 * application/x-www-form-urlencoded bodies, decoded strictly: a `%` that
 * does not begin an escape, or escapes that do not spell UTF-8 (`%ED%A0%80`,
 * a lone surrogate), make the request a 400. fast-querystring, the default
 * of @fastify/formbody, keeps such a value as its literal text, so that an
 * admin form saved `%ED%A0%80` as a client's name; no browser sends it.
 */
import { parse } from 'node:querystring';

export const MALFORMED_FORM_BODY = 'FORM_BODY_MALFORMED';

export class MalformedFormBody extends Error {
  readonly statusCode = 400;
  readonly code = MALFORMED_FORM_BODY;
  constructor() {
    super('The form is malformed: each % must begin a percent-escape (%XX) of UTF-8.');
    this.name = 'MalformedFormBody';
  }
}

/** @fastify/formbody's `parser`: the fields (null prototype; a repeated name gives an array), or {@link MalformedFormBody}. */
export function parseFormBody(text: string): Record<string, string | string[]> {
  if (text.includes('%')) {
    try {
      decodeURIComponent(text);
    } catch {
      throw new MalformedFormBody();
    }
  }
  return parse(text, undefined, undefined, { maxKeys: 0 }) as Record<string, string | string[]>;
}
