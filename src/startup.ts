/**
 * Start-up decisions of main.ts, kept apart from the process handling so that
 * tests can check them without starting a server.
 */
import type { Config } from './config.ts';
import type { DB } from './db/database.ts';
import { loadDemoDataIfEmpty, type DemoSummary } from './demo/demo-data.ts';
import type { KeyMaterial } from './oauth/keys/key-material.ts';

/** SPEC §3: an empty database gets the demo dataset, never in production (checked before touching the database). */
export async function loadDemoOnFirstStart(config: Config, db: DB, keys: KeyMaterial): Promise<DemoSummary | undefined> {
  if (config.isProduction) return undefined;
  return loadDemoDataIfEmpty(db, keys);
}

export interface Notice {
  readonly level: 'info' | 'warn';
  readonly message: string;
}

/**
 * What to log about generated keys. In production it is a warning: SPEC §3
 * wants keys shared by configuration, and keys generated per instance make
 * one instance refuse the tokens another signed.
 */
export function keyOriginNotice(config: Config, keys: KeyMaterial): Notice | undefined {
  if (keys.generatedIn === undefined) return undefined;
  if (!config.isProduction) return { level: 'info', message: `using key files in ${keys.generatedIn} (generated on first start)` };
  return {
    level: 'warn',
    message: `NODE_ENV=production without OAUTH_PRIVATE_KEY(_FILE) and OAUTH_ENCRYPTION_KEY(_FILE): using keys generated `
      + `for this instance in ${keys.generatedIn}. Several instances must share keys through configuration, `
      + 'or tokens signed by one are refused by the others.',
  };
}
