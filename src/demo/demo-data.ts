/**
 * The demo dataset (SPEC §9): small, realistic, German-flavoured, with known
 * passwords. Loaded into an empty database outside production only; later
 * areas add their objects in {@link fillDemoData}. The whole dataset goes in
 * as one transaction under an advisory lock: instances starting together load
 * it once, and an interrupted load leaves the database empty, not half-filled.
 */
import { createRegion, createUser } from '../accounts/accounts.service.ts';
import type { RegionType } from '../accounts/accounts.tables.ts';
import { ROLES, type RoleName } from '../accounts/roles.ts';
import { countUsers } from '../accounts/users.repository.ts';
import type { DB } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import { lockForTransaction } from '../db/transaction.ts';
import type { KeyMaterial } from '../oauth/keys/key-material.ts';
import { describeOAuthDemo, loadOAuthDemo, type DemoOAuthClient } from './demo-oauth.ts';
import { loadCommunityDemo, type DemoCommunity } from './demo-community.ts';
import { loadSharingDemo, type DemoSharing } from './demo-sharing.ts';
import { saveDemoSummary } from './demo-summary.ts';

export const DEMO_PASSWORD = 'demo-password';

/** Every demo account's address (example.org: reserved, RFC 2606, so never a real member's). */
export const DEMO_USER_EMAILS = [
  'foodsharer@example.org', 'foodsaver@example.org', 'storemanager@example.org',
  'ambassador@example.org', 'orga@example.org', 'koeln@example.org',
] as const;

export interface DemoRegion { id: number; name: string; type: RegionType; parentId: number | null }
export interface DemoUser { id: number; email: string; password: string; firstName: string; lastName: string; role: RoleName; regionIds: number[]; ambassadorOf: number[] }

export interface DemoSummary {
  regions: DemoRegion[];
  users: DemoUser[];
  /** Stores, quizzes, contents, region pins, reports (demo-community.ts). */
  community: DemoCommunity;
  /** Baskets with requests, polls, feature toggles (demo-sharing.ts). */
  sharing: DemoSharing;
  /** A confidential and a public OAuth client (demo-oauth.ts); empty when loaded without key material. */
  oauthClients: DemoOAuthClient[];
}

export class DatabaseNotEmptyError extends Error {
  constructor() {
    super('The database already holds users; the demo dataset is loaded only into an empty database.');
    this.name = 'DatabaseNotEmptyError';
  }
}

export class DemoRefusedInProduction extends Error {
  constructor() {
    super('The demo dataset is never loaded in production (NODE_ENV=production): its accounts have published passwords.');
    this.name = 'DemoRefusedInProduction';
  }
}

/** Arbitrary constant naming the demo loader's lock (the migrations use 7_140_523_981). */
const DEMO_LOCK_KEY = 7_140_523_982;

export async function isDatabaseEmpty(db: Executor): Promise<boolean> {
  return (await countUsers(db)) === 0;
}

/** Loads the demo dataset; throws {@link DatabaseNotEmptyError} unless the database is empty. */
export async function loadDemoData(db: DB, keys?: KeyMaterial): Promise<DemoSummary> {
  const summary = await loadDemoDataIfEmpty(db, keys);
  if (!summary) throw new DatabaseNotEmptyError();
  return summary;
}

/**
 * Loads the demo dataset when the database holds no users; returns undefined
 * otherwise. Emptiness is checked after taking the lock, inside the transaction
 * that loads everything, so a concurrent loader finds the committed dataset.
 */
export function loadDemoDataIfEmpty(db: DB, keys?: KeyMaterial): Promise<DemoSummary | undefined> {
  return db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, DEMO_LOCK_KEY);
    if (!(await isDatabaseEmpty(trx))) return undefined;
    return fillDemoData(trx, keys);
  });
}

async function fillDemoData(db: Executor, keys: KeyMaterial | undefined): Promise<DemoSummary> {
  const regions: DemoRegion[] = [];
  const region = async (name: string, type: RegionType, parentId: number | null) => {
    const id = await createRegion(db, { name, type, parentId });
    regions.push({ id, name, type, parentId });
    return id;
  };
  const germany = await region('Deutschland', 'country', null);
  const berlin = await region('Berlin', 'region', germany);
  const kreuzberg = await region('Berlin-Kreuzberg', 'district', berlin);
  const cologne = await region('Köln', 'region', germany);
  const workingGroup = await region('AG Öffentlichkeitsarbeit Berlin', 'working-group', berlin);

  const users: DemoUser[] = [];
  const user = async (email: string, firstName: string, lastName: string, role: RoleName, regionIds: number[], ambassadorOf: number[] = []) => {
    const id = await createUser(db, { email, password: DEMO_PASSWORD, firstName, lastName, role, regionIds, ambassadorOf, demoAccount: true });
    users.push({ id, email, password: DEMO_PASSWORD, firstName, lastName, role, regionIds, ambassadorOf });
    return id;
  };
  await user('foodsharer@example.org', 'Frieda', 'Teiler', 'foodsharer', [kreuzberg]);
  await user('foodsaver@example.org', 'Fabian', 'Retter', 'foodsaver', [berlin, kreuzberg, workingGroup]);
  await user('storemanager@example.org', 'Stefanie', 'Betrieb', 'store-manager', [berlin]);
  await user('ambassador@example.org', 'Alma', 'Botschafter', 'ambassador', [berlin], [berlin]);
  await user('orga@example.org', 'Otto', 'Orga', 'orga', [germany, workingGroup]);
  await user('koeln@example.org', 'Klara', 'Kölsch', 'foodsaver', [cologne]);

  const community = await loadCommunityDemo(db, { regions, users });
  const sharing = await loadSharingDemo(db, { regions, users });
  const oauthClients = keys ? await loadOAuthDemo(db, keys) : [];
  const summary = { regions, users, community, sharing, oauthClients };
  await saveDemoSummary(db, summary);
  return summary;
}

export function describeDemoLogins(summary: DemoSummary): string[] {
  return [
    ...summary.users.map((u) => `${u.email.padEnd(26)} ${u.password}  (${u.role}, role ${ROLES[u.role]})`),
    ...describeOAuthDemo(summary.oauthClients),
  ];
}
