/**
 * Feature toggles (SPEC-API `PATCH /api/feature-toggles/{featureToggle}`).
 * The set of toggles is defined here in code, as on the original platform;
 * the database holds only their current state, so every instance agrees.
 */
import { isOrga } from '../../accounts/roles.ts';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import type { Actor } from '../actor.ts';
import { featureToggleProblems } from './feature-toggles.problems.ts';
import { findToggleState, findToggleStates, flipToggleState, saveToggleState } from './feature-toggles.repository.ts';

/** Every defined toggle with its state when nobody has switched it yet. */
export const FEATURE_TOGGLES: Readonly<Record<string, boolean>> = Object.freeze({
  /** Shows the petition banner; `GET /api/petition` answers 503 while it is off. */
  petitionBanner: false,
  /** Offers web push notifications to browsers. */
  webPushNotifications: true,
  /** Lets basket creators attach pictures. */
  basketPictures: true,
});

export interface FeatureToggleState { identifier: string; isActive: boolean }

export function isDefinedToggle(identifier: string): boolean {
  return Object.hasOwn(FEATURE_TOGGLES, identifier);
}

/** Whether a defined toggle is on; undefined identifiers are off. */
export async function isFeatureActive(db: Executor, identifier: string): Promise<boolean> {
  if (!isDefinedToggle(identifier)) return false;
  return (await findToggleState(db, identifier)) ?? FEATURE_TOGGLES[identifier]!;
}

export async function listFeatureToggles(db: Executor): Promise<FeatureToggleState[]> {
  const states = await findToggleStates(db);
  return Object.entries(FEATURE_TOGGLES)
    .map(([identifier, fallback]) => ({ identifier, isActive: states.get(identifier) ?? fallback }));
}

/** Orga only; `newState` undefined or null flips the toggle. */
export async function setFeatureToggle(
  db: Executor, clock: Clock, actor: Actor, identifier: string, newState: boolean | null | undefined,
  assertValidInput: () => void,
): Promise<FeatureToggleState> {
  if (!isDefinedToggle(identifier)) throw featureToggleProblems.notFound(identifier);
  if (!isOrga(actor)) throw featureToggleProblems.notOrga();
  assertValidInput();
  const now = clock();
  if (newState === undefined || newState === null) {
    return { identifier, isActive: await flipToggleState(db, identifier, FEATURE_TOGGLES[identifier]!, actor.id, now) };
  }
  await saveToggleState(db, identifier, newState, actor.id, now);
  return { identifier, isActive: newState };
}
