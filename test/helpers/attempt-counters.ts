/**
 * What every store of the failed-attempt counters (login-attempt-counters.ts:
 * PostgreSQL, Redis) must do when an attempt is given back: leave the counter
 * as if the attempt had never been made, unless a later attempt moved it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { AttemptCounters, DelayPolicy, Reservation } from '../../src/accounts/login-attempt-counters.ts';

const NO_WAIT: DelayPolicy = { free: 100, baseSeconds: 1, maxSeconds: 1 };

function counted(reservation: Reservation) {
  if (!reservation.counted) throw new Error(`refused for ${reservation.wait} s`);
  return reservation;
}

export async function expectExactGiveBack(store: AttemptCounters, start: Date): Promise<void> {
  const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
  const key = `give-back:${randomUUID()}`;
  // A counter the attempt made is gone again.
  const made = counted(await store.reserve(key, NO_WAIT, at(0)));
  expect(made.previousEnd).toBeNull();
  await store.giveBack(key, made);
  const first = counted(await store.reserve(key, NO_WAIT, at(1)));
  expect(first.previousEnd).toBeNull();
  // An attempt after it, given back: the end is the first one's again.
  await store.giveBack(key, counted(await store.reserve(key, NO_WAIT, at(2))));
  const third = counted(await store.reserve(key, NO_WAIT, at(3)));
  expect(third.previousEnd).toEqual(first.end);
  // An attempt given back after a later one was counted: the later one's end stays.
  const fourth = counted(await store.reserve(key, NO_WAIT, at(4)));
  await store.giveBack(key, third);
  expect(counted(await store.reserve(key, NO_WAIT, at(5))).previousEnd).toEqual(fourth.end);
}
