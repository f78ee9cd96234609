/**
 * Reads the petition status from `PETITION_SOURCE_URL`: a JSON document
 * `{href, signatures, daysLeft}`. Anything slow, failing, oversized or of
 * another shape is a failed fetch (null), never an exception. The source and
 * every redirect hop must resolve to public addresses (src/http/guarded-get.ts),
 * unless `PETITION_ALLOW_PRIVATE=true`: no request of ours reaches loopback,
 * the private network or a cloud metadata service because a URL says so.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { guardedGet } from '../../http/guarded-get.ts';
import { isPublicAddress } from '../../http/public-address.ts';

const INT4_MAX = 2_147_483_647;

/** Bounds fit the cache's columns, so no answer of the source can fail the database write. */
export const PetitionDataSchema = Type.Object({
  href: Type.String({ maxLength: 2000, pattern: '^https?://[^\\u0000]*$' }),
  signatures: Type.Integer({ minimum: 0, maximum: INT4_MAX }),
  daysLeft: Type.Integer({ minimum: -INT4_MAX, maximum: INT4_MAX }),
}, { title: 'PetitionData' });
export type PetitionData = Static<typeof PetitionDataSchema>;

const MAX_BODY_BYTES = 64 * 1024;

export interface PetitionFetchOptions {
  timeoutMs: number;
  /** Whether a resolved address may be reached; by default only public ones (no loopback, private, link-local). */
  isAllowedAddress?: (address: string) => boolean;
}

export async function fetchPetitionData(sourceUrl: string, options: PetitionFetchOptions): Promise<PetitionData | null> {
  try {
    const text = await guardedGet(sourceUrl, {
      timeoutMs: options.timeoutMs,
      maxBytes: MAX_BODY_BYTES,
      isAllowedAddress: options.isAllowedAddress ?? isPublicAddress,
      headers: { accept: 'application/json' },
    });
    if (text === null) return null;
    const data: unknown = JSON.parse(text);
    if (!Value.Check(PetitionDataSchema, data) || !isHttpUrl(data.href)) return null;
    return { href: data.href, signatures: data.signatures, daysLeft: data.daysLeft };
  } catch {
    return null;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
