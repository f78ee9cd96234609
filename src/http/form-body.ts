/**
 * application/x-www-form-urlencoded bodies, decoded strictly: bytes that are
 * not UTF-8 (a browser percent-encodes every byte outside ASCII), a `%` that
 * does not begin an escape, or escapes that do not spell UTF-8 (`%ED%A0%80`,
 * a lone surrogate) make the request a 400. fast-querystring, the default of
 * @fastify/formbody, keeps such a value as its literal text, so that an admin
 * form saved `%ED%A0%80` as a client's name; and @fastify/formbody turns the
 * body's bytes into text leniently (U+FFFD for each byte that is not UTF-8)
 * before any parser sees them, so two different byte strings were one
 * password. The app parses forms itself, from the bytes.
 */
import { parse } from 'node:querystring';
import type { FastifyInstance } from 'fastify';

export const MALFORMED_FORM_BODY = 'FORM_BODY_MALFORMED';

export class MalformedFormBody extends Error {
  readonly statusCode = 400;
  readonly code = MALFORMED_FORM_BODY;
  constructor() {
    super('The form is malformed: it must be UTF-8, and each % must begin a percent-escape (%XX) of UTF-8.');
    this.name = 'MalformedFormBody';
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The fields of a form's bytes (null prototype; a repeated name gives an array), or {@link MalformedFormBody}. */
export function parseFormBody(body: Uint8Array): Record<string, string | string[]> {
  let text: string;
  try {
    text = UTF8.decode(body);
    if (text.includes('%')) decodeURIComponent(text);
  } catch {
    throw new MalformedFormBody();
  }
  return parse(text, undefined, undefined, { maxKeys: 0 }) as Record<string, string | string[]>;
}

/** Every route's parser of `application/x-www-form-urlencoded` bodies of at most `bodyLimit` bytes. */
export function installFormParser(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => {
    try {
      done(null, parseFormBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
