/**
 * Entry point: load config → open database → migrate → (demo data) → keys →
 * buildApp → listen. SIGTERM/SIGINT stop accepting, finish in-flight
 * requests and close the database.
 */
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { databaseTarget } from './db/target.ts';
import { describeDemoLogins, isDatabaseEmpty, loadDemoData } from './demo/demo-data.ts';
import { loadKeyMaterial } from './oauth/keys/key-material.ts';
import { startMaintenance } from './ops/maintenance.ts';
import { systemClock } from './clock.ts';

const SHUTDOWN_TIMEOUT_MS = 15_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const database = await openDatabase(databaseTarget(config));
  const applied = await migrate(database.db);
  const keys = await loadKeyMaterial(config);
  const app = await buildApp(config, { database, keys });
  if (applied.length > 0) app.log.info({ migrations: applied }, 'database migrated');
  if (keys.generatedIn) app.log.info({ dir: keys.generatedIn }, 'using key files (generated on first start)');

  let demoLogins: string[] = [];
  if (!config.isProduction && await isDatabaseEmpty(database.db)) {
    demoLogins = describeDemoLogins(await loadDemoData(database.db, keys));
  }

  const maintenance = startMaintenance(database.db, systemClock, app.log);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    maintenance.stop();
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Food-sharing server ready at ${config.publicUrl} (${database.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`);
  if (demoLogins.length > 0) {
    const banner = `Demo dataset loaded. Log in at ${config.publicUrl}/login with:\n  ${demoLogins.join('\n  ')}`;
    app.log.info(banner);
    // People starting it by hand read JSON log lines badly: repeat it as plain text on a terminal.
    if (process.stdout.isTTY) process.stdout.write(`\n${banner}\n\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
