/**
 * The stores suites' world: a region, another region, users of every role
 * around a store's team (members, standby, an unverified member, a manager),
 * each logged in. `useStoreTeam(t)` builds it before the file's tests.
 */
import { beforeAll } from 'vitest';
import { makeStore } from '../helpers/api-factories.ts';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';
import type { AppFixture } from '../helpers/fixture.ts';
import type { TestSession } from '../helpers/session.ts';

export const DAY = 24 * 3600;

const ROLES_AROUND_THE_STORE = {
  member: { role: 'foodsaver' }, member2: { role: 'foodsaver' }, standby: { role: 'foodsaver' },
  unverified: { role: 'foodsaver', verified: false }, manager: { role: 'store-manager' }, manager2: { role: 'store-manager' },
  outsider: { role: 'store-manager' }, ambassador: { role: 'ambassador', ambassadorOf: 'region' },
  foreignAmbassador: { role: 'ambassador', ambassadorOf: 'otherRegion' }, orga: { role: 'orga' },
  candidate: { role: 'store-manager' }, foodsaverCandidate: { role: 'foodsaver' },
} as const;


/** `logInEveryoneAgain()`: sessions expire, so after moving the clock by weeks everyone logs in again. */
export function useStoreTeam(t: AppFixture) {
  const regions = { region: 0, otherRegion: 0 };
  let storeId = 0;
  const users: Record<string, TestUser> = {};
  const sessions: Record<string, TestSession> = {};
  beforeAll(async () => {
    regions.region = await makeRegion(t.db);
    regions.otherRegion = await makeRegion(t.db);
    for (const [name, spec] of Object.entries(ROLES_AROUND_THE_STORE)) {
      const ambassadorOf = 'ambassadorOf' in spec ? [regions[spec.ambassadorOf]] : [];
      users[name] = await makeUser(t.db, { regionIds: [regions.region], ...spec, ambassadorOf });
      sessions[name] = await t.logIn(users[name]!);
    }
    storeId = await makeStore(t.db, regions.region, {
      member: [users.member!.id, users.member2!.id, users.unverified!.id], standby: [users.standby!.id],
      manager: [users.manager!.id],
    });
  });
  return {
    get region() { return regions.region; },
    get otherRegion() { return regions.otherRegion; },
    get storeId() { return storeId; },
    users,
    sessions,
    id: (name: string) => users[name]!.id,
    async logInEveryoneAgain() {
      for (const name of Object.keys(users)) sessions[name] = await t.logIn(users[name]!);
    },
    storeLog: () => t.db.selectFrom('store_log').selectAll().orderBy('id').execute(),
  };
}

export type StoreTeam = ReturnType<typeof useStoreTeam>;
