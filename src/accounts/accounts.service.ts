/**
 * Creating accounts and regions (used by the CLI and the demo dataset), with
 * the same validation wherever they come from.
 */
import type { Executor } from '../db/executor.ts';
import { inTransaction } from '../db/transaction.ts';
import { InvalidInput, type FieldError } from '../invalid-input.ts';
import { hasRefusedNameCharacters, NAME_CHARACTERS_PROBLEM } from '../text/control-characters.ts';
import { REGION_TYPES, type RegionType } from './accounts.tables.ts';
import { dropPendingLogins } from './one-time-codes/pending-logins.ts';
import { passwordProblem } from './password-policy.ts';
import { hashPassword } from './passwords.ts';
import { findExistingRegionIds, findRegionById, insertRegion } from './regions.repository.ts';
import { ROLES, type RoleName } from './roles.ts';
import { endSessionsAndGrantsOfUser, type EndedSessions } from './sessions.ts';
import { addAmbassadorships, addMemberships, findUserCredentialsByEmail, insertUser, updatePasswordHash } from './users.repository.ts';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CreateUserInput {
  email: string;
  password: string;
  /** A demo account (the demo dataset): its password is the published demo password, which members may not choose. */
  demoAccount?: boolean;
  firstName: string;
  lastName: string;
  role?: RoleName;
  verified?: boolean;
  regionIds?: readonly number[];
  ambassadorOf?: readonly number[];
}

/** Creates a user with memberships; throws {@link InvalidInput} naming each bad field. */
export async function createUser(db: Executor, input: CreateUserInput): Promise<number> {
  const errors: FieldError[] = [];
  const email = input.email.trim();
  if (!EMAIL_PATTERN.test(email) || email.length > 254 || hasRefusedNameCharacters(email)) errors.push({ field: 'email', message: 'must be a valid email address' });
  const weak = await passwordProblem(input.password, email, { demoAccount: input.demoAccount === true });
  if (weak) errors.push({ field: 'password', message: weak });
  for (const field of ['firstName', 'lastName'] as const) {
    const problem = nameProblem(input[field], 100);
    if (problem) errors.push({ field, message: problem });
  }
  const role = input.role ?? 'foodsharer';
  if (!(role in ROLES)) errors.push({ field: 'role', message: `must be one of ${Object.keys(ROLES).join(', ')}` });
  const regionIds = [...new Set(input.regionIds ?? [])];
  const ambassadorOf = [...new Set(input.ambassadorOf ?? [])];
  const existing = await findExistingRegionIds(db, [...regionIds, ...ambassadorOf]);
  for (const id of regionIds) if (!existing.has(id)) errors.push({ field: 'region', message: `region ${id} does not exist` });
  for (const id of ambassadorOf) if (!existing.has(id)) errors.push({ field: 'ambassadorOf', message: `region ${id} does not exist` });
  if (errors.length === 0 && await findUserCredentialsByEmail(db, email)) {
    errors.push({ field: 'email', message: 'is already registered' });
  }
  if (errors.length > 0) throw new InvalidInput(errors);

  const passwordHash = await hashPassword(input.password);
  try {
    return await inTransaction(db, async (trx) => {
      const id = await insertUser(trx, {
        email,
        passwordHash,
        firstName: input.firstName.trim(),
        lastName: input.lastName.trim(),
        role: ROLES[role],
        verified: input.verified ?? ROLES[role] >= ROLES.foodsaver,
        homeRegionId: regionIds[0] ?? null,
      });
      // An ambassador of a region is also its member.
      await addMemberships(trx, id, [...new Set([...regionIds, ...ambassadorOf])]);
      await addAmbassadorships(trx, id, ambassadorOf);
      return id;
    });
  } catch (error) {
    // Added at the same moment by another request (the check above read before either insert).
    if ((error as { code?: string }).code === '23505') throw new InvalidInput([{ field: 'email', message: 'is already registered' }]);
    throw error;
  }
}

/**
 * Sets a new password (an operator's reset) and, in the same transaction,
 * ends every session of the member as a logout would (their codes in flight
 * and the grants issued under them go too): whoever knew the old password is
 * signed out. Throws {@link InvalidInput} for a weak one; undefined when the
 * user does not exist.
 */
export async function setUserPassword(db: Executor, userId: number, password: string, now: Date): Promise<EndedSessions | undefined> {
  const user = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  if (!user) return undefined;
  const weak = await passwordProblem(password, user.email);
  if (weak) throw new InvalidInput([{ field: 'password', message: weak }]);
  const passwordHash = await hashPassword(password);
  return inTransaction(db, async (trx) => {
    if (!(await updatePasswordHash(trx, userId, passwordHash))) return undefined;
    await dropPendingLogins(trx, userId);
    return endSessionsAndGrantsOfUser(trx, userId, now);
  });
}

export interface CreateRegionInput {
  name: string;
  parentId?: number | null;
  type?: RegionType;
}

export async function createRegion(db: Executor, input: CreateRegionInput): Promise<number> {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  const problem = nameProblem(name, 200);
  if (problem) errors.push({ field: 'name', message: problem });
  const type = input.type ?? 'region';
  if (!REGION_TYPES.includes(type)) errors.push({ field: 'type', message: `must be one of ${REGION_TYPES.join(', ')}` });
  const parentId = input.parentId ?? null;
  if (parentId !== null && !(await findRegionById(db, parentId))) {
    errors.push({ field: 'parent', message: `region ${parentId} does not exist` });
  }
  if (errors.length > 0) throw new InvalidInput(errors);
  return insertRegion(db, { name, parentId, type });
}

/** Shown to other people (text/control-characters.ts) and stored as PostgreSQL text, which cannot hold NUL. */
function nameProblem(value: string, maxLength: number): string | undefined {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > maxLength) return `must be 1 to ${maxLength} characters`;
  return hasRefusedNameCharacters(trimmed) ? NAME_CHARACTERS_PROBLEM : undefined;
}
