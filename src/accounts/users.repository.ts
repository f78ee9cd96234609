import type { Executor } from '../db/executor.ts';

export interface UserRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  photo: string | null;
  role: number;
  verified: boolean;
  sleeping: boolean;
  home_region_id: number | null;
}

const USER_COLUMNS = ['id', 'email', 'first_name', 'last_name', 'photo', 'role', 'verified', 'sleeping', 'home_region_id'] as const;

export function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findUserCredentialsByEmail(db: Executor, email: string) {
  return db.selectFrom('users')
    .select([...USER_COLUMNS, 'password_hash', 'disabled_at'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export interface NewUser {
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  role: number;
  verified: boolean;
  homeRegionId: number | null;
}

export async function insertUser(db: Executor, user: NewUser): Promise<number> {
  const row = await db.insertInto('users').values({
    email: user.email,
    password_hash: user.passwordHash,
    first_name: user.firstName,
    last_name: user.lastName,
    photo: null,
    role: user.role,
    verified: user.verified,
    home_region_id: user.homeRegionId,
  }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function addMemberships(db: Executor, userId: number, regionIds: readonly number[]): Promise<void> {
  if (regionIds.length === 0) return;
  await db.insertInto('region_memberships')
    .values(regionIds.map((region_id) => ({ user_id: userId, region_id })))
    .onConflict((oc) => oc.doNothing()).execute();
}

export async function addAmbassadorships(db: Executor, userId: number, regionIds: readonly number[]): Promise<void> {
  if (regionIds.length === 0) return;
  await db.insertInto('region_ambassadors')
    .values(regionIds.map((region_id) => ({ user_id: userId, region_id })))
    .onConflict((oc) => oc.doNothing()).execute();
}

export async function findRegionIdsOfUser(db: Executor, userId: number): Promise<{ member: number[]; ambassador: number[] }> {
  const [member, ambassador] = await Promise.all([
    db.selectFrom('region_memberships').select('region_id').where('user_id', '=', userId).orderBy('region_id').execute(),
    db.selectFrom('region_ambassadors').select('region_id').where('user_id', '=', userId).orderBy('region_id').execute(),
  ]);
  return { member: member.map((r) => r.region_id), ambassador: ambassador.map((r) => r.region_id) };
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether the member may sign in (`active`), was disabled (until enabled again), or was deleted (the row anonymised). */
export type AccountStatus = 'active' | 'disabled' | 'deleted';

export interface UserWithStatus extends UserRow {
  disabled_at: Date | null;
  deleted_at: Date | null;
}

export function accountStatus(user: Pick<UserWithStatus, 'disabled_at' | 'deleted_at'>): AccountStatus {
  if (user.deleted_at !== null) return 'deleted';
  return user.disabled_at !== null ? 'disabled' : 'active';
}

export function listUsers(db: Executor): Promise<UserWithStatus[]> {
  return db.selectFrom('users').select([...USER_COLUMNS, 'disabled_at', 'deleted_at']).orderBy('id').execute();
}

export function findUserWithStatus(db: Executor, id: number): Promise<UserWithStatus | undefined> {
  return db.selectFrom('users').select([...USER_COLUMNS, 'disabled_at', 'deleted_at']).where('id', '=', id).executeTakeFirst();
}

export async function updatePasswordHash(db: Executor, id: number, passwordHash: string): Promise<boolean> {
  const result = await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
