/**
 * `GET /api/petition` (SPEC-API): the petition status from the configured
 * source, cached 10 minutes in the database so every instance shares it; when
 * the source fails the last good data is served, and a failed source is asked
 * again only after a minute so that an outage does not cost every request a
 * timeout. One request asks, on whichever instance: it claims the ask before
 * it makes it, and the others meanwhile serve the last good data (or 503
 * before there is any), instead of each asking and each waiting.
 */
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { isFeatureActive } from '../feature-toggles/feature-toggles.service.ts';
import { petitionProblems } from './petition.problems.ts';
import { claimPetitionFetch, findPetitionCache, savePetitionData } from './petition.repository.ts';
import { fetchPetitionData, type PetitionData } from './petition.source.ts';
import type { PetitionCacheTable } from './petition.tables.ts';

export const PETITION_CACHE_SECONDS = 10 * 60;
export const PETITION_RETRY_SECONDS = 60;
export const PETITION_FETCH_TIMEOUT_MS = 2_000;

export interface PetitionOptions {
  sourceUrl: string | undefined;
  timeoutMs?: number;
  /** `PETITION_ALLOW_PRIVATE`: the source may be on loopback or a private network. */
  allowPrivate?: boolean;
}

export async function getPetition(db: Executor, clock: Clock, options: PetitionOptions): Promise<PetitionData> {
  if (!(await isFeatureActive(db, 'petitionBanner'))) throw petitionProblems.unavailable('The petition banner is switched off.');
  const { sourceUrl } = options;
  if (sourceUrl === undefined) throw petitionProblems.unavailable('No petition source is configured.');
  const cached = await findPetitionCache(db, sourceUrl);
  const now = clock();
  const cachedData = cached ? toData(cached) : null;
  if (cachedData && ageSeconds(cached!.fetched_at!, now) < PETITION_CACHE_SECONDS) return cachedData;
  const askedBefore = new Date(now.getTime() - PETITION_RETRY_SECONDS * 1000);
  if (!(await claimPetitionFetch(db, sourceUrl, now, askedBefore))) return lastGood(cachedData);
  const fresh = await fetchPetitionData(sourceUrl, {
    timeoutMs: options.timeoutMs ?? PETITION_FETCH_TIMEOUT_MS,
    ...(options.allowPrivate ? { isAllowedAddress: () => true } : {}),
  });
  if (!fresh) return lastGood(cachedData);
  await savePetitionData(db, sourceUrl, fresh, clock());
  return fresh;
}

function lastGood(cachedData: PetitionData | null): PetitionData {
  if (cachedData) return cachedData;
  throw petitionProblems.unavailable('The petition status is not available yet.');
}

function toData(row: PetitionCacheTable): PetitionData | null {
  if (row.fetched_at === null || row.href === null || row.signatures === null || row.days_left === null) return null;
  return { href: row.href, signatures: row.signatures, daysLeft: row.days_left };
}

function ageSeconds(then: Date, now: Date): number {
  return (now.getTime() - then.getTime()) / 1000;
}

