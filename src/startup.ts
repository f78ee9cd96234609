/**
 * Start-up decisions of main.ts, kept apart from the process handling so that
 * tests can check them without starting a server.
 */
import type { Config } from './config.ts';
import type { DB } from './db/database.ts';
import { findLiveDemoCredentials, type LiveDemoCredential } from './demo/demo-credentials.ts';
import { loadDemoDataIfEmpty, type DemoSummary } from './demo/demo-data.ts';
import type { KeyMaterial } from './oauth/keys/key-material.ts';

/** SPEC §3: an empty database gets the demo dataset, never in production (checked before touching the database). */
export async function loadDemoOnFirstStart(config: Config, db: DB, keys: KeyMaterial): Promise<DemoSummary | undefined> {
  if (config.isProduction) return undefined;
  return loadDemoDataIfEmpty(db, keys);
}

export interface Notice {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
}

const REMOVE_COMMAND = '`npm run cli -- demo remove` (`foodsharing demo remove` where the package is installed)';

/** Production with published demo credentials that still work, and no ALLOW_DEMO_IN_PRODUCTION=true. */
export class DemoCredentialsInProduction extends Error {
  constructor(readonly live: readonly LiveDemoCredential[]) {
    super([
      'NODE_ENV=production, but published demo credentials still work on this database:',
      ...live.map(describeCredential),
      `Remove the demo accounts and clients with ${REMOVE_COMMAND}, or give each a new password (user set-password) `
        + 'or secret (client rotate-secret). To start anyway, set ALLOW_DEMO_IN_PRODUCTION=true (every start then logs an error).',
    ].join('\n'));
    this.name = 'DemoCredentialsInProduction';
  }
}

/**
 * Production never accepts a published demo credential. A database
 * once started outside production holds the demo accounts (password
 * `demo-password`, the orga role among them) and the demo client with its
 * README secret; in production the start is refused while any of them still
 * works, unless the operator set ALLOW_DEMO_IN_PRODUCTION=true — then every
 * start says so at error level. Outside production nothing is checked.
 */
export async function checkDemoCredentials(config: Config, db: DB, keys: KeyMaterial): Promise<Notice | undefined> {
  if (!config.isProduction) return undefined;
  const live = await findLiveDemoCredentials(db, keys);
  if (!config.allowDemoInProduction) {
    if (live.length > 0) throw new DemoCredentialsInProduction(live);
    return undefined;
  }
  if (live.length === 0) {
    return { level: 'warn', message: 'ALLOW_DEMO_IN_PRODUCTION=true, though no demo credential works on this database: unset it, '
      + 'so that a demo credential never goes unnoticed.' };
  }
  return {
    level: 'error',
    message: 'ALLOW_DEMO_IN_PRODUCTION=true: this production server accepts published demo credentials; anyone can use them:\n'
      + `${live.map(describeCredential).join('\n')}\nRemove them with ${REMOVE_COMMAND} and unset ALLOW_DEMO_IN_PRODUCTION.`,
  };
}

function describeCredential(credential: LiveDemoCredential): string {
  return credential.kind === 'account'
    ? `  - account ${credential.name} still has the demo password`
    : `  - OAuth client ${credential.name} still has the demo secret`;
}

/** The oldest Node.js major release that still gets security fixes, and that `engines` asks for. */
export const OLDEST_SUPPORTED_NODE = 22;

/**
 * A Node.js past its end of life gets no security fixes, and an odd-numbered release gets them for
 * months only (it never becomes a long-term support release): said at every start (npm only warns
 * about `engines` on install), at error level in production. The server still starts.
 */
export function nodeVersionNotice(config: Pick<Config, 'isProduction'>, version: string): Notice | undefined {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (major >= OLDEST_SUPPORTED_NODE && major % 2 === 0) return undefined;
  const problem = major < OLDEST_SUPPORTED_NODE ? 'is past its end of life and gets no security fixes'
    : 'is an odd-numbered release, without long-term support: its security fixes end months after it came out';
  return {
    level: config.isProduction ? 'error' : 'warn',
    message: `Node.js ${version} ${problem}; this server supports the long-term support releases Node.js ${OLDEST_SUPPORTED_NODE} and 24 (README).`,
  };
}

/** Variables still set that this version ignores (config.ts), one warning each. */
export function ignoredVariableNotices(config: Config): Notice[] {
  return config.ignoredVariables.map(({ name, reason }) => ({ level: 'warn', message: `${name} is set but ignored: ${reason}` }));
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
