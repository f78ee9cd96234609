/**
 * Reads the petition status from `PETITION_SOURCE_URL`: a JSON document
 * `{href, signatures, daysLeft}`. Anything slow, failing, oversized or of
 * another shape is a failed fetch (null), never an exception.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const INT4_MAX = 2_147_483_647;

/** Bounds fit the cache's columns, so no answer of the source can fail the database write. */
export const PetitionDataSchema = Type.Object({
  href: Type.String({ maxLength: 2000, pattern: '^https?://[^\\u0000]*$' }),
  signatures: Type.Integer({ minimum: 0, maximum: INT4_MAX }),
  daysLeft: Type.Integer({ minimum: -INT4_MAX, maximum: INT4_MAX }),
});
export type PetitionData = Static<typeof PetitionDataSchema>;

const MAX_BODY_BYTES = 64 * 1024;

export async function fetchPetitionData(sourceUrl: string, timeoutMs: number): Promise<PetitionData | null> {
  try {
    const response = await fetch(sourceUrl, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
      redirect: 'follow',
    });
    if (!response.ok) return null;
    const text = await readLimited(response, MAX_BODY_BYTES);
    if (text === null) return null;
    const data: unknown = JSON.parse(text);
    if (!Value.Check(PetitionDataSchema, data) || !isHttpUrl(data.href)) return null;
    return { href: data.href, signatures: data.signatures, daysLeft: data.daysLeft };
  } catch {
    return null;
  }
}

async function readLimited(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
