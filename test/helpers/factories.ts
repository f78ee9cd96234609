/** Small factories for test data, built through the same services the app uses. */
import { createRegion, createUser } from '../../src/accounts/accounts.service.ts';
import type { RegionType } from '../../src/accounts/accounts.tables.ts';
import type { RoleName } from '../../src/accounts/roles.ts';
import type { DB } from '../../src/db/database.ts';

let counter = 0;

export const TEST_PASSWORD = 'correct horse battery';

export interface TestUser { id: number; email: string; password: string }

export async function makeUser(db: DB, options: { role?: RoleName; regionIds?: number[]; ambassadorOf?: number[]; email?: string; firstName?: string; lastName?: string; verified?: boolean } = {}): Promise<TestUser> {
  counter += 1;
  const email = options.email ?? `user${counter}-${Date.now()}@example.test`;
  const id = await createUser(db, {
    email,
    password: TEST_PASSWORD,
    firstName: options.firstName ?? `Test${counter}`,
    lastName: options.lastName ?? 'User',
    role: options.role ?? 'foodsaver',
    regionIds: options.regionIds ?? [],
    ambassadorOf: options.ambassadorOf ?? [],
    ...(options.verified === undefined ? {} : { verified: options.verified }),
  });
  return { id, email, password: TEST_PASSWORD };
}

export function makeRegion(db: DB, options: { name?: string; type?: RegionType; parentId?: number | null } = {}): Promise<number> {
  counter += 1;
  return createRegion(db, { name: options.name ?? `Region ${counter}`, type: options.type ?? 'region', parentId: options.parentId ?? null });
}
