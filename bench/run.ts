/**
 * `npm run bench`: the server's throughput side by side with panva's
 * oidc-provider — in memory, and as deployed (Redis, JWT access tokens) — and
 * with the machine's ceilings, measured in one run; then the start-up time.
 *
 * How it works:
 * - Database: PostgreSQL when DATABASE_URL is set or 127.0.0.1:5432 answers
 *   (a database `bench_<pid>` of its own, dropped at the end), else PGlite in
 *   a temporary DATA_DIR (`--pglite` forces it). See database.ts.
 * - The server is a child process started as `npm start` does
 *   (server-process.ts), LOG_LEVEL=warn, demo dataset loaded; oidc-provider
 *   (peer/oidc-provider.mjs) and the ceilings (ceilings/*) are children too.
 *   Every child is killed, the database dropped and the peer's Redis keys
 *   deleted at the end, on error and on Ctrl-C.
 * - Load comes from this process: autocannon as a library over loopback
 *   (load.ts). Each scenario first checks one sample response
 *   (checks.ts: tokens verify against the JWKS, nonce, at_hash, rotation,
 *   userinfo claims) and warms up, then runs `--runs` times for `--duration`
 *   seconds; the child's CPU (utime+stime from /proc/<pid>/stat over the wall
 *   time) and peak RSS (VmRSS sampled every 100 ms) are metered meanwhile,
 *   and so is the CPU of its helpers: our database's backends (found in
 *   pg_stat_activity) and the peer's redis-server (its pid from INFO).
 *   The tables show medians.
 * - Codes for the exchange are minted beforehand through the real
 *   /oauth/authorize with a logged-in session and a remembered consent (the
 *   peer's through its own models), more than a run can use; each is used
 *   once. Refresh chains: one per connection, each from its own exchange.
 *   The ES256 client is registered through the CLI (PostgreSQL only: the
 *   embedded database is the server's alone while it runs).
 * - Ratios: ours ÷ peer as deployed, ours ÷ in-memory peer, ours ÷ ceiling
 *   (HTTP ceiling for discovery/JWKS, the one-query database ceiling for REST
 *   and authorize, signatures/s ÷ 2 for the exchange and refresh — two
 *   signatures each). Each target of the performance work is printed beside
 *   its figure, met or not met.
 * - Exit status 1 when a check fails or a scenario had more than a handful
 *   of failed responses; the numbers themselves never fail it.
 * Progress goes to stderr, the tables to stdout (`--json FILE` too).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, USAGE, UsageError, type Options, type ScenarioKey } from './args.ts';
import { check, CheckFailed } from './checks.ts';
import { describeUnexpectedExits, killAllChildren, stopAllChildren, type Child } from './child-process.ts';
import { backendPids, DatabaseSetupError, isLocal, openBenchDatabase, seedBig, type BenchDatabase } from './database.ts';
import { registerHelpers, type RunResult } from './load.ts';
import { rssMb } from './proc-stats.ts';
import {
  addRatios, bigTable, evaluateTargets, ratioTable, startTable, summarize, table, targetTable, type Group, type Row, type StartResult,
} from './report.ts';
import { runCryptoCeiling, startDatabaseCeiling, startHttpCeiling } from './scenarios/ceilings.ts';
import { discoveryScenario, exchangeScenario, jwksScenario, refreshScenario, userinfoScenario, type OAuthTarget } from './scenarios/oauth.ts';
import {
  authorizeScenario, clientTarget, DEMO, findPinRegion, ourTarget, restReadScenario, restWriteScenario, type OurClient, type OurSession,
} from './scenarios/ours.ts';
import { openRedis, PEER_MINT_NOTE, PEER_NOTES, startPeer, type PeerStore } from './scenarios/peer.ts';
import type { Scenario } from './scenarios/scenario.ts';
import type { Redis } from 'ioredis';
import { embeddedStarts, postgresStarts } from './scenarios/start.ts';
import { childEnv, ROOT, serverEntry, startServer } from './server-process.ts';
import { createRequire } from 'node:module';

/** More failed responses than this in a scenario fails the bench. */
const HANDFUL = 5;

/** The scenarios `--big` reruns. */
const BIG_KEYS: readonly ScenarioKey[] = ['exchange', 'refresh', 'userinfo', 'rest-read'];

const log = (line: string) => process.stderr.write(`${line}\n`);

interface OurTargets { demo: OAuthTarget; es256: OAuthTarget | undefined }

function ourScenarios(server: Child, targets: OurTargets, session: OurSession, options: Options, keys: ReadonlySet<ScenarioKey>): Scenario[] {
  const o = { connections: options.connections, duration: options.duration };
  const all: Partial<Record<ScenarioKey, () => Scenario | undefined>> = {
    exchange: () => exchangeScenario(targets.demo, o),
    refresh: () => refreshScenario(targets.demo, o),
    'exchange-es256': () => (targets.es256 ? exchangeScenario(targets.es256, o) : undefined),
    userinfo: () => userinfoScenario(targets.demo, o),
    authorize: () => authorizeScenario(targets.demo, session, o),
    discovery: () => discoveryScenario(targets.demo, o),
    jwks: () => jwksScenario(targets.demo, o),
    'rest-read': () => restReadScenario(server, session, o),
    'rest-write': () => restWriteScenario(server, session, o),
  };
  return (Object.keys(all) as ScenarioKey[]).filter((k) => keys.has(k)).map((k) => all[k]!()).filter((s): s is Scenario => s !== undefined);
}

async function checkSample(s: Scenario, label = s.name): Promise<void> {
  log(`▸ ${label}: checking a sample response`);
  try {
    await s.check();
  } catch (error) {
    if (error instanceof CheckFailed) throw new CheckFailed(`${label}: ${error.message}`);
    throw error;
  }
}

/** One timed run of `s`, logged as run `i`. */
async function timedRun(s: Scenario, i: number, options: Options, label = ''): Promise<RunResult> {
  const r = await s.run(options.duration);
  const statuses = r.bad > 0 ? `  statuses ${JSON.stringify(r.statuses)}` : '';
  const helper = r.helperCpuCores === null ? '' : ` + ${r.helperCpuCores.toFixed(2)} (db/Redis)`;
  log(`  run ${i}/${options.runs}${label}: ${r.rps.toFixed(0)} ${s.unit}, p50 ${r.p50} ms, p99 ${r.p99} ms, failed ${r.bad}, `
    + `CPU ${r.cpuCores?.toFixed(2) ?? '?'}${helper} cores, peak RSS ${r.peakRssMb?.toFixed(0) ?? '?'} MB${statuses}`);
  return r;
}

/** Notes the warning and error lines `watch` logged since `before`, on `s`. */
function noteWarnings(s: Scenario, watch: Child | undefined, before: number): void {
  if (!watch || watch.warnings.length <= before) return;
  const count = watch.warnings.length - before;
  const note = `${s.name}: the ${watch.name} logged ${count} warning/error line(s), first: ${watch.warnings[before]!.slice(0, 300)}`;
  s.notes.push(note);
  log(`  NOTE ${note}`);
}

async function measure(s: Scenario, group: Group, options: Options, watch?: Child): Promise<Row> {
  const warningsBefore = watch?.warnings.length ?? 0;
  await checkSample(s);
  const runs = [];
  for (let i = 1; i <= options.runs; i++) runs.push(await timedRun(s, i, options));
  noteWarnings(s, watch, warningsBefore);
  return summarize(s.key, s.name, group, s.unit, runs);
}

/** Seconds of load each side of a `--big` pair takes before its timed runs (the fresh server's JIT and pools); no longer than a run. */
function pairWarmUp(options: Options): number {
  return Math.min(2, options.duration);
}

/**
 * The same scenario on the small and the big database (two servers), run by
 * run in turn — small, big, small, big — so that a machine that speeds up or
 * slows down over minutes moves both alike.
 */
async function measurePair(small: Scenario, big: Scenario, options: Options, servers: { small: Child; big: Child }): Promise<{ small: Row; big: Row }> {
  const before = { small: servers.small.warnings.length, big: servers.big.warnings.length };
  await checkSample(small, `${small.name}, small database`);
  await checkSample(big, `${big.name}, big database`);
  await small.run(pairWarmUp(options));
  await big.run(pairWarmUp(options));
  const runs = { small: [] as RunResult[], big: [] as RunResult[] };
  for (let i = 1; i <= options.runs; i++) {
    runs.small.push(await timedRun(small, i, options, ', small database'));
    runs.big.push(await timedRun(big, i, options, ', big database'));
  }
  noteWarnings(small, servers.small, before.small);
  noteWarnings(big, servers.big, before.big);
  return {
    small: summarize(small.key, `${small.name}, small database beside --big`, 'ours', small.unit, runs.small),
    big: summarize(big.key, big.name, 'ours', big.unit, runs.big),
  };
}

function cpuModel(): string {
  return os.cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
}

function peerVersion(): string {
  try {
    return (createRequire(import.meta.url)('oidc-provider/package.json') as { version: string }).version;
  } catch {
    return '9.x';
  }
}

/** Registers an ES256 client through the CLI (as an operator would) on the bench's PostgreSQL database. */
function addEs256Client(database: BenchDatabase): OurClient {
  const clientId = 'bench-es256';
  const cli = spawnSync(process.execPath, [path.join(ROOT, 'bin/foodsharing.js'), 'client', 'add', '--client-id', clientId, '--name', 'Bench ES256',
    '--redirect-uri', DEMO.redirectUri, '--scope', 'profile', '--scope', 'email', '--grant', 'refresh_token',
    '--id-token-signed-response-alg', 'ES256', '--json'], {
    cwd: ROOT, encoding: 'utf8', env: childEnv({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn', MAIL: 'off' }),
  });
  check(cli.status === 0, `client add ${clientId} exited ${cli.status}: ${cli.stdout}${cli.stderr}`);
  const { secret } = JSON.parse(cli.stdout) as { secret: string };
  return { clientId, clientSecret: secret, alg: 'ES256' };
}

interface PeerRun { rows: Row[]; notes: string[] }

async function measurePeer(store: PeerStore, options: Options, redis?: { client: Redis; url: string }): Promise<PeerRun> {
  const o = { connections: options.connections, duration: options.duration };
  const peer = await startPeer(store, redis);
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    if (peer.redisPid !== null) registerHelpers(peer.child.pid, async () => [peer.redisPid!]);
    log(`peer: oidc-provider ${peerVersion()} (${store}) on ${peer.child.url}`);
    const builders: Partial<Record<ScenarioKey, () => Scenario>> = store === 'memory'
      ? {
          exchange: () => exchangeScenario(peer.target, o),
          refresh: () => refreshScenario(peer.target, o),
          userinfo: () => userinfoScenario(peer.target, o),
          discovery: () => discoveryScenario(peer.target, o),
          jwks: () => jwksScenario(peer.target, o),
        }
      : {
          exchange: () => exchangeScenario(peer.target, o),
          refresh: () => refreshScenario(peer.target, o),
          'exchange-es256': () => exchangeScenario(peer.es256, o),
        };
    for (const key of (Object.keys(builders) as ScenarioKey[]).filter((k) => options.only.has(k))) {
      const s = builders[key]!();
      rows.push(await measure(s, store === 'memory' ? 'peer' : 'deployed', options, peer.child));
      notes.push(...s.notes);
    }
    notes.push(PEER_NOTES[store].replace('%VERSION%', peerVersion()));
    if (store === 'redis' && peer.redisPid === null) notes.push('peer as deployed: Redis is not on this machine, its CPU is not measured');
  } finally {
    await peer.stop();
  }
  return { rows, notes };
}

async function main(options: Options): Promise<number> {
  const notes: string[] = [];
  const rows: Row[] = [];
  const bigRows: Row[] = [];
  /** The small database's figures measured in turn with bigRows. */
  const bigSmallRows: Row[] = [];
  const starts: StartResult[] = [];
  let database: BenchDatabase | undefined;
  let bigDatabase: BenchDatabase | undefined;
  let closeBackends = async () => {};
  let redis: Redis | undefined;
  let interrupted = false;
  const cleanup = async () => {
    await stopAllChildren().catch(() => {});
    await closeBackends();
    redis?.disconnect();
    for (const d of [database, bigDatabase]) await d?.drop().catch((error: unknown) => log(`could not drop the bench database: ${String(error)}`));
    database = undefined;
    bigDatabase = undefined;
  };
  process.on('exit', killAllChildren);
  process.once('SIGINT', () => {
    interrupted = true;
    log('\ninterrupted: stopping the children and dropping the bench database');
    void cleanup().finally(() => process.exit(130));
  });

  try {
    database = await openBenchDatabase(options.pglite);
    log(`database: ${database.describe}`);
    if (options.big && database.kind !== 'postgres') {
      throw new UsageError('--big needs PostgreSQL: seeding a million rows into the embedded PGlite is not a meaningful comparison (start PostgreSQL or set DATABASE_URL)');
    }
    const entry = serverEntry();
    log(`server: ${entry.describe} (LOG_LEVEL=warn)`);
    const server = await startServer({ databaseUrl: database.url, dataDir: database.dataDir, ...(options.cpuProf !== undefined ? { cpuProfDir: options.cpuProf } : {}) });
    const rssAfterStart = rssMb(server.pid);
    log(`server ready in ${(server.startupMs / 1000).toFixed(1)} s (first start: migrations, keys, demo data), RSS ${rssAfterStart?.toFixed(0) ?? '?'} MB`);
    if (database.url && isLocal(database.url)) {
      const backends = backendPids(database.url);
      closeBackends = backends.close;
      registerHelpers(server.pid, backends);
    } else {
      notes.push('the database is not on this machine (or is the embedded PGlite, inside the server): its CPU is not measured separately');
    }
    const o = { connections: options.connections, duration: options.duration };
    const { target, session } = await ourTarget(server, o);
    log(`logged in as ${DEMO.email} (user ${session.userId}), consent remembered for ${DEMO.clientId}`);
    let es256: OAuthTarget | undefined;
    if (options.only.has('exchange-es256')) {
      if (database.kind === 'postgres') {
        es256 = (await clientTarget(server, session, addEs256Client(database), o)).target;
        log('ES256 client bench-es256 registered through the CLI, consent remembered');
      } else {
        notes.push('code exchange, ES256 client: skipped on PGlite (the client is registered through the CLI, which cannot open the embedded database while the server runs)');
      }
    }
    const targets: OurTargets = { demo: target, es256 };

    const ours = ourScenarios(server, targets, session, options, options.only);
    for (const s of ours) rows.push(await measure(s, 'ours', options, server));
    for (const s of ours) notes.push(...s.notes);
    const rssAfterLoad = rssMb(server.pid);

    const wants = (keys: readonly ScenarioKey[]) => keys.some((k) => options.only.has(k));
    if (options.peer && wants(['exchange', 'refresh', 'exchange-es256', 'userinfo', 'discovery', 'jwks'])) {
      const memory = await measurePeer('memory', options);
      rows.push(...memory.rows);
      notes.push(...memory.notes);
      const opened = wants(['exchange', 'refresh', 'exchange-es256']) ? await openRedis(options.redisUrl) : undefined;
      if (opened && 'redis' in opened) {
        redis = opened.redis;
        const deployed = await measurePeer('redis', options, { client: redis, url: options.redisUrl });
        rows.push(...deployed.rows);
        notes.push(...deployed.notes);
      } else if (opened) {
        notes.push(`peer as deployed: skipped — ${opened.reason}; start Redis or pass --redis-url`);
        log(`NOTE peer as deployed skipped: ${opened.reason}`);
      }
      notes.push(PEER_MINT_NOTE);
    }

    if (options.ceilings) {
      const http = await startHttpCeiling(o);
      rows.push(await measure(http.scenario, 'ceiling', options));
      await http.child.stop();
      const db = await startDatabaseCeiling(o, database.url, session.userId);
      rows.push(await measure(db.scenario, 'ceiling', options));
      await db.child.stop();
      log('▸ crypto ceiling: RS256 sign, verify, ES256 sign (node:crypto callback API, KeyObjects, 64 in flight)');
      const sign = [];
      const verify = [];
      const signEs256 = [];
      for (let i = 1; i <= options.runs; i++) {
        const r = await runCryptoCeiling(options.duration);
        sign.push(r.sign);
        verify.push(r.verify);
        signEs256.push(r.signEs256);
        log(`  run ${i}/${options.runs}: RS256 sign ${r.sign.rps.toFixed(0)}/s, verify ${r.verify.rps.toFixed(0)}/s, ES256 sign ${r.signEs256.rps.toFixed(0)}/s`);
      }
      rows.push(summarize('crypto-sign', 'crypto ceiling: RS256 sign', 'ceiling', 'ops/s', sign));
      rows.push(summarize('crypto-verify', 'crypto ceiling: RS256 verify', 'ceiling', 'ops/s', verify));
      rows.push(summarize('crypto-sign-es256', 'crypto ceiling: ES256 sign', 'ceiling', 'ops/s', signEs256));
      notes.push(database.kind === 'pglite'
        ? 'database ceiling: select id, email from users where id = $1 on an in-memory PGlite (one connection, like the server\'s embedded database)'
        : 'database ceiling: select id, email from users where id = $1 through a pg pool of 10 (the server\'s size) on the bench database');
    }
    addRatios(rows);

    const bigKeys = new Set(BIG_KEYS.filter((k) => options.only.has(k)));
    if (options.big && bigKeys.size > 0) {
      bigDatabase = await openBenchDatabase(false, 'big');
      log(`▸ --big: a second server on a second database, ${bigDatabase.describe}`);
      const bigServer = await startServer({ databaseUrl: bigDatabase.url, dataDir: bigDatabase.dataDir });
      const bigBackends = backendPids(bigDatabase.url!);
      const closeSmallBackends = closeBackends;
      closeBackends = async () => { await closeSmallBackends(); await bigBackends.close(); };
      if (isLocal(bigDatabase.url!)) registerHelpers(bigServer.pid, bigBackends);
      const big = await ourTarget(bigServer, o);
      const members = Math.floor(options.bigRows / 10);
      log(`▸ --big: seeding ${options.bigRows.toLocaleString('en-US')} refresh tokens, grants and sessions, ${members.toLocaleString('en-US')} members`);
      await seedBig(bigDatabase.url!, log, options.bigRows, await findPinRegion(bigServer, big.session));
      const smallScenarios = ourScenarios(server, targets, session, options, bigKeys);
      const bigScenarios = ourScenarios(bigServer, { demo: big.target, es256: undefined }, big.session, options, bigKeys);
      for (const [i, smallScenario] of smallScenarios.entries()) {
        const pair = await measurePair(smallScenario, bigScenarios[i]!, options, { small: server, big: bigServer });
        if (pair.small.rate > 0) pair.big.vsSmall = pair.big.rate / pair.small.rate;
        bigSmallRows.push(pair.small);
        bigRows.push(pair.big);
      }
      await bigServer.stop();
      notes.push(`--big: the big database has a server of its own; each scenario runs on the two servers in turn (small, big, small, big, after ${pairWarmUp(options)} s of load on each), `
        + 'so that the machine\'s drift over minutes moves both alike; the small figures of the --big table are those runs, not the first table\'s');
    }

    if (options.only.has('start')) {
      await server.stop();
      starts.push(await embeddedStarts(options.starts, log));
      if (database.kind === 'postgres') starts.push(await postgresStarts(database.url!, database.dataDir, options.starts, log));
    }

    notes.unshift(
      `server ready ${(server.startupMs / 1000).toFixed(1)} s after spawn on an empty database (migrations, key generation, demo data); `
      + `RSS ${rssAfterStart?.toFixed(0) ?? '?'} MB after start, ${rssAfterLoad?.toFixed(0) ?? '?'} MB after the load`,
      'authorize: codes/s; a good response is a 303 with a code, "non-2xx" counts any other answer',
      'non-2xx: failed responses (other statuses, connection errors, timeouts) summed over the runs; rate, p50, p99, CPU: medians; RSS: peak',
      'CPU ms/req: the server process\'s CPU per request; db/Redis ms/req: that of the PostgreSQL backends serving the bench database (ours) or of redis-server (the peer as deployed)',
    );
    const header = [
      `npm run bench — ${new Date().toISOString()}`,
      `machine: ${os.cpus().length} cores, ${cpuModel()}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB; Node ${process.version}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
      `database: ${database.describe}`,
      `server: ${entry.describe}, LOG_LEVEL=warn; load: autocannon in the bench process, ${options.connections} connections over loopback`,
      `each scenario: ${options.duration} s × ${options.runs} run(s), medians`,
    ];
    const failedRows = [...rows, ...bigSmallRows, ...bigRows].filter((r) => r.bad > HANDFUL);
    const crashed = describeUnexpectedExits();
    const uniqueNotes = [...new Set(notes)];
    const targets_ = evaluateTargets(rows, bigRows, starts);
    const text = [
      ...header, '',
      table(rows), '',
      ratioTable(rows), '',
      ...(bigRows.length ? [`--big (${options.bigRows.toLocaleString('en-US')} refresh tokens, grants and sessions; ${Math.floor(options.bigRows / 10).toLocaleString('en-US')} members):`, bigTable(bigRows, bigSmallRows), ''] : []),
      ...(starts.length ? [startTable(starts), ''] : []),
      'targets (never fail the bench; measured under the load conditions above):',
      targetTable(targets_), '',
      ...uniqueNotes.map((n) => `- ${n}`),
      ...failedRows.map((r) => `FAILED: ${r.name} had ${r.bad} failed responses (${JSON.stringify(r.runs.map((x) => x.statuses))})`),
      ...crashed.map((c) => `FAILED: ${c}`),
    ].join('\n');
    process.stdout.write(`\n${text}\n`);
    if (options.json) {
      writeFileSync(options.json, `${JSON.stringify({
        date: new Date().toISOString(),
        machine: { cores: os.cpus().length, cpu: cpuModel(), memoryGb: os.totalmem() / 2 ** 30, node: process.version, loadAverage: os.loadavg() },
        database: { kind: database.kind, describe: database.describe },
        server: entry.describe,
        options: { ...options, only: [...options.only] },
        startupMs: server.startupMs, rssAfterStartMb: rssAfterStart, rssAfterLoadMb: rssAfterLoad,
        rows, bigRows, bigSmallRows, starts, targets: targets_, notes: uniqueNotes,
        failed: [...failedRows.map((r) => r.name), ...crashed],
      }, null, 2)}\n`);
      log(`wrote ${options.json}`);
    }
    return failedRows.length > 0 || crashed.length > 0 ? 1 : 0;
  } catch (error) {
    if (interrupted) return 130;
    if (error instanceof CheckFailed) log(`\nbench FAILED, correctness check: ${error.message}`);
    else if (error instanceof UsageError) { log(error.message); return 2; }
    else if (error instanceof DatabaseSetupError) log(`\nbench FAILED: ${error.message}`);
    else log(`\nbench FAILED: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    for (const exit of describeUnexpectedExits()) log(exit);
    return 1;
  } finally {
    if (!interrupted) await cleanup();
  }
}

let parsed: Options | 'help';
try {
  parsed = parseArgs(process.argv.slice(2));
} catch (error) {
  log(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(2);
}
if (parsed === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
process.exit(await main(parsed));
