/**
 * `If-None-Match` (RFC 9110 §13.1.2): the condition is false — the client's
 * copy is current, answer 304 — when the field is `*` or lists an entity tag
 * that matches ours by the weak comparison (§8.8.3.2: `W/"x"` matches `"x"`).
 */

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (§8.8.3)
const ENTITY_TAG = /(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g;

/** Whether `If-None-Match` names the representation whose (strong or weak) ETag is `etag`. */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const ours = opaqueTag(etag);
  for (const match of value.matchAll(ENTITY_TAG)) if (match[1] === ours) return true;
  return false;
}

function opaqueTag(etag: string): string {
  return etag.replace(/^W\//, '').replace(/^"|"$/g, '');
}
