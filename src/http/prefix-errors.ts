/**
 * Errors answered before any route runs (Node's HTTP parser, Fastify's
 * router) know only the URL. A part of the URL space with an error
 * vocabulary of its own (`/api`: problem+json, SPEC §7) hands its wording in
 * here, so that http/ serves every vocabulary without naming one.
 */
export interface PrefixErrorWording {
  /** The path prefix it owns: that path and everything below it. */
  readonly prefix: string;
  /** Media type of the body, without parameters. */
  readonly contentType: string;
  /** The JSON body for an error with this status and client-safe detail. */
  body(status: number, detail: string): unknown;
}
