/**
 * Entry point: load config (the environment over `.env`) → read the keys →
 * open database → migrate → check the encryption key against the database →
 * refuse working demo credentials in production → buildApp
 * → (demo data) → start the purge, the logout-notice and mail senders → listen.
 * SIGTERM/SIGINT stop accepting, finish in-flight requests and logout-notice
 * attempts, and close the database; one arriving during start-up lets the step
 * under way (the demo dataset's transaction, say) finish, then stops.
 */
import nodeModule from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import type { KeyMaterial } from './oauth/keys/key-material.ts';
import type { Notice } from './startup.ts';

// Node's compile cache (in os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; Node 22.0 has none): later starts
// reuse the compiled code of the modules loaded after this line. Static imports
// are compiled before any line runs, so the modules are imported here instead.
(nodeModule.enableCompileCache as typeof nodeModule.enableCompileCache | undefined)?.();
const { MAIL_POLL_MS } = await import('./mail/mail-setup.ts');
const { ConfigError, loadConfig, readProcessEnvironment } = await import('./config.ts');
const { migrate } = await import('./db/migrate.ts');
const { openConfiguredDatabase } = await import('./db/target.ts');
const { describeDemoLogins } = await import('./demo/demo-data.ts');
const { checkEncryptionKey } = await import('./oauth/keys/key-check.ts');
const { loadKeyMaterial } = await import('./oauth/keys/key-material.ts');
const { isPrettyLog } = await import('./ops/log-options.ts');
const { startMaintenance } = await import('./ops/maintenance.ts');
const { purgeTasks } = await import('./purge-tasks.ts');
const { checkDemoCredentials, ignoredVariableNotices, keyOriginNotice, loadDemoOnFirstStart, nodeVersionNotice } = await import('./startup.ts');
const { systemClock } = await import('./clock.ts');
const { buildApp } = await import('./app.ts');

const SHUTDOWN_TIMEOUT_MS = 15_000;

interface Running {
  database?: DatabaseHandle;
  app?: FastifyInstance;
  maintenance?: { stop(): void };
  stopping: boolean;
}

async function main(): Promise<void> {
  const { env, envFile } = readProcessEnvironment();
  const config = loadConfig(env);
  const keys = await loadKeyMaterial(config); // before the database: a bad key stops the start here
  const running: Running = { stopping: false };
  let startup: Promise<void> = Promise.resolve();
  const shutdown = async (signal: string) => {
    if (running.stopping) return;
    running.stopping = true;
    if (running.app) running.app.log.info({ signal }, 'shutting down');
    else process.stderr.write(`${signal}: stopping\n`);
    setTimeout(() => {
      process.stderr.write('shutdown took too long; exiting\n');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    await startup.catch(() => {});
    running.maintenance?.stop();
    await running.app?.close();
    await running.database?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  startup = start(config, keys, running, envFile);
  await startup;
}

async function start(config: Config, keys: KeyMaterial, running: Running, envFile: string | undefined): Promise<void> {
  const database = running.database = await openConfiguredDatabase(config);
  const applied = await migrate(database.db);
  await checkEncryptionKey(database.db, config, keys); // another instance's key: refuse before reporting ready
  const demoNotice = await checkDemoCredentials(config, database.db, keys); // working demo credentials in production: refuse
  const app = running.app = await buildApp(config, { database, keys });
  if (envFile) app.log.info({ envFile }, `settings read from ${envFile} (the environment's own variables take precedence)`);
  if (applied.length > 0) app.log.info({ migrations: applied }, 'database migrated');
  const keyNotice = keyOriginNotice(config, keys);
  if (keyNotice) app.log[keyNotice.level]({ dir: keys.generatedIn }, keyNotice.message);
  const notices: (Notice | undefined)[] = [nodeVersionNotice(config, process.version), demoNotice, ...ignoredVariableNotices(config)];
  for (const notice of notices) if (notice) app.log[notice.level](notice.message);
  if (running.stopping) return;
  const demo = await loadDemoOnFirstStart(config, database.db, keys);
  if (running.stopping) return;

  running.maintenance = startMaintenance(database.db, systemClock, app.log, purgeTasks(config));
  app.logoutNotices.start(config.backchannelLogoutPollSeconds * 1000); // closing the app stops it
  app.mailSender?.start(MAIL_POLL_MS); // and this one
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => { throw listenFailure(error, config); });
  app.log.info(`Food-sharing server ready at ${config.publicUrl} (${database.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`);
  if (demo) {
    const banner = `Demo dataset loaded. Log in at ${config.publicUrl}/login with:\n  ${describeDemoLogins(demo).join('\n  ')}`;
    app.log.info(banner);
    // People starting it by hand read JSON log lines badly: repeat it as plain text on a terminal.
    if (process.stdout.isTTY && !isPrettyLog(config, true)) process.stdout.write(`\n${banner}\n\n`);
  }
}

/** A failed listen said in terms of the setting to change (the error alone names neither PORT nor HOST). */
function listenFailure(error: unknown, config: Config): unknown {
  const code = (error as { code?: unknown }).code;
  const at = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new Error(`PORT=${config.port}: another program already listens on ${at}. Stop it, or set PORT to a free port (PORT=8081 npm start).`);
    case 'EACCES':
      return new Error(`PORT=${config.port}: this user may not listen on ${at} (ports below 1024 need privileges). Set PORT to 1024 or above.`);
    case 'EADDRNOTAVAIL':
      return new Error(`HOST=${config.host}: no network interface of this machine has that address. Set HOST to one of its addresses, or leave it unset (0.0.0.0: every interface).`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new Error(`HOST=${config.host}: the name does not resolve to an address. Set HOST to an address of this machine, or leave it unset (0.0.0.0: every interface).`);
    default:
      return error;
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
