/**
 * `npm run soak`: no acknowledged write is lost when the server is killed.
 *
 * The server runs as `npm start` runs it (build, then `node dist/main.js`,
 * bench/server-process.ts) on a PostgreSQL database created for the run
 * (`bench_<pid>` on 127.0.0.1:5432, or on the server of `--database-url` /
 * DATABASE_URL; dropped at the end) holding the demo dataset of the first
 * start. Writers of every kind (writers.ts) run concurrently; at the end of
 * each of `--kills` equal shares of `--duration` the server gets SIGKILL in the
 * middle of their requests and is started again on the same database and
 * port. Then every write answered 2xx must be there with its values, no
 * half-done state may exist (integrity.ts), and every refresh chain must go on
 * from its last acknowledged token (verify.ts). Prints `lost: N`; exit status
 * 1 when anything was lost, half done, stuck or answered with a server fault.
 */
import pg from 'pg';
import { UsageError } from '../args.ts';
import { freePort, killAllChildren, stopAllChildren, type Child } from '../child-process.ts';
import { DatabaseSetupError, openBenchDatabase, type BenchDatabase } from '../database.ts';
import type { OAuthTarget } from '../scenarios/oauth.ts';
import { ourTarget, type OurSession } from '../scenarios/ours.ts';
import { serverEntry, startServer } from '../server-process.ts';
import { parseSoakArgs, SOAK_USAGE, type SoakOptions } from './args.ts';
import { pause, type Member, type Phase } from './client.ts';
import { findHalfDone } from './integrity.ts';
import { Ledger } from './ledger.ts';
import { report, type CycleResult } from './report.ts';
import { verify } from './verify.ts';
import { basketWriter, contentWriter, exchangeWriter, logIn, refreshWriter, sessionWriter, uploadWriter, type WriterContext } from './writers.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const DEMO_EMAILS = ['foodsharer', 'foodsaver', 'storemanager', 'ambassador', 'orga', 'koeln'].map((n) => `${n}@example.org`);
/**
 * REFRESH_TOKEN_GRACE_SECONDS of the soak's server (the default is 30): long
 * enough that a restart on a busy machine still retries inside it, so the
 * single-successor retry is what gets checked; past it, revocation is expected.
 */
const GRACE_SECONDS = 120;

function startWriters(c: WriterContext, writers: number): Array<Promise<void>> {
  const each = (n: number, start: (w: number) => Promise<void>) => Array.from({ length: n }, (_, w) => start(w));
  return [
    ...each(Math.max(1, writers - 1), (w) => sessionWriter(c, w)),
    ...each(writers, (w) => contentWriter(c, w)),
    ...each(writers, (w) => basketWriter(c, w)),
    ...each(writers, () => exchangeWriter(c)),
    ...each(2 * writers, (w) => refreshWriter(c, w, 2 * writers)),
    ...each(writers, (w) => uploadWriter(c, w)),
  ];
}

/** SIGKILL, and its exit awaited; false when the server had already died by itself. */
async function kill(server: Child): Promise<boolean> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) return false;
  const exited = new Promise((resolve) => server.process.once('exit', resolve));
  server.process.kill('SIGKILL');
  await exited;
  await server.stop();
  return true;
}

interface Soak {
  options: SoakOptions;
  db: pg.Pool;
  setup: Parameters<typeof startServer>[0];
  server: Child;
  target: OAuthTarget;
  session: OurSession;
  members: Member[];
  ledger: Ledger;
}

/** One share of the load, ended by SIGKILL mid-load; then the restart and the checks. */
async function cycle(s: Soak, n: number): Promise<CycleResult> {
  const phase: Phase = { stopped: false };
  const writers = startWriters({
    url: s.server.url, ledger: s.ledger, phase, target: { ...s.target, child: s.server }, oauthCookie: s.session.cookie,
    authorizePath: s.session.authorizePath, orga: s.members[DEMO_EMAILS.indexOf('orga@example.org')]!, members: s.members,
  }, s.options.writers);
  await pause((s.options.duration / s.options.kills) * 1000);
  const killedAt = Date.now();
  const alive = await kill(s.server);
  phase.stopped = true;
  await Promise.all(writers);
  log(`cycle ${n}/${s.options.kills}: ${alive ? 'SIGKILL sent mid-load' : 'the server had died by itself'}; restarting on the same database`);
  s.server = await startServer(s.setup);
  const restartMs = Date.now() - killedAt;
  log(`  ready again ${(restartMs / 1000).toFixed(1)} s after the kill; checking`);
  const halfDone = await findHalfDone(s.db);
  const verdict = await verify(s.db, { ...s.target, child: s.server }, s.ledger, killedAt + (GRACE_SECONDS - 5) * 1000);
  log(`  checked in ${((Date.now() - killedAt - restartMs) / 1000).toFixed(1)} s`);
  return { cycle: n, diedByItself: !alive, restartMs, halfDone, verdict };
}

async function soak(options: SoakOptions, database: BenchDatabase, db: pg.Pool): Promise<number> {
  const building = Date.now();
  serverEntry();
  log(`build: ${((Date.now() - building) / 1000).toFixed(1)} s`);
  const setup = { databaseUrl: database.url, dataDir: database.dataDir, port: await freePort(), env: { REFRESH_TOKEN_GRACE_SECONDS: String(GRACE_SECONDS) } };
  const server = await startServer(setup);
  log(`server ready in ${(server.startupMs / 1000).toFixed(1)} s on ${server.url} (first start: migrations, keys, demo data)`);
  const { target, session } = await ourTarget(server, { connections: 4, duration: options.duration });
  const ledger = new Ledger();
  const members: Member[] = [];
  for (const email of DEMO_EMAILS) {
    const member = await logIn({ url: server.url, ledger }, email);
    if (!member) throw new Error(`the demo member ${email} could not log in (${JSON.stringify(ledger.tallies.sessions.refused)})`);
    members.push(member);
  }
  const s: Soak = { options, db, setup, server, target, session, members, ledger };
  const cycles: CycleResult[] = [];
  for (let n = 1; n <= options.kills; n++) cycles.push(await cycle(s, n));
  await s.server.stop();
  return report(process.stdout, { options, database: database.describe, server: serverEntry().describe, ledger, cycles });
}

async function main(argv: readonly string[]): Promise<number> {
  let database: BenchDatabase | undefined;
  let db: pg.Pool | undefined;
  const cleanup = async () => {
    await stopAllChildren().catch(() => {});
    await db?.end().catch(() => {});
    await database?.drop().catch((error: unknown) => log(`could not drop the soak database: ${String(error)}`));
    database = undefined;
  };
  process.on('exit', killAllChildren);
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    const options = parseSoakArgs(argv);
    if (options === 'help') {
      log(SOAK_USAGE);
      return 0;
    }
    if (options.databaseUrl) process.env.DATABASE_URL = options.databaseUrl;
    database = await openBenchDatabase(false);
    if (database.kind !== 'postgres') throw new DatabaseSetupError('the soak needs PostgreSQL: none answers at 127.0.0.1:5432 and no --database-url or DATABASE_URL is set');
    log(`database: ${database.describe}`);
    db = new pg.Pool({ connectionString: database.url, max: 4 });
    // An idle connection ended by PostgreSQL (the database dropped with force at the end, a restart) is no failure of the soak's.
    db.on('error', () => {});
    return await soak(options, database, db);
  } catch (error) {
    if (error instanceof UsageError) {
      log(`${error.message}\n${SOAK_USAGE}`);
      return 2;
    }
    log(`\nsoak FAILED: ${error instanceof DatabaseSetupError ? error.message : error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return 1;
  } finally {
    await cleanup();
  }
}

process.exitCode = await main(process.argv.slice(2));
