/**
 * `npm run bench`: the server's throughput side by side with panva's
 * oidc-provider and with the machine's ceilings, measured in one run.
 *
 * How it works:
 * - Database: PostgreSQL when DATABASE_URL is set or 127.0.0.1:5432 answers
 *   (a database `bench_<pid>` of its own, dropped at the end), else PGlite in
 *   a temporary DATA_DIR (`--pglite` forces it). See database.ts.
 * - The server is a child process started as `npm start` does
 *   (server-process.ts), LOG_LEVEL=warn, demo dataset loaded; oidc-provider
 *   (peer/oidc-provider.mjs) and the ceilings (ceilings/*) are children too.
 *   Every child is killed, and the database dropped, at the end, on error and
 *   on Ctrl-C.
 * - Load comes from this process: autocannon as a library over loopback
 *   (load.ts). Each scenario first checks one sample response
 *   (checks.ts: tokens verify against the JWKS, nonce, at_hash, rotation,
 *   userinfo claims) and warms up, then runs `--runs` times for `--duration`
 *   seconds; the child's CPU (utime+stime from /proc/<pid>/stat over the wall
 *   time) and peak RSS (VmRSS sampled every 100 ms) are metered meanwhile.
 *   The table shows medians.
 * - Codes for the exchange are minted beforehand through the real
 *   /oauth/authorize with a logged-in session and a remembered consent (the
 *   peer's through its own models), more than a run can use; each is used
 *   once. Refresh chains: one per connection, each from its own exchange.
 * - Ratios: ours ÷ peer; ours ÷ ceiling (HTTP ceiling for discovery/JWKS,
 *   database ceiling for REST and authorize, RS256 sign/s ÷ 2 for the code
 *   exchange — two signatures each — and sign/s for the refresh grant).
 * - Exit status 1 when a check fails or a scenario had more than a handful
 *   of failed responses; the numbers themselves never fail it.
 * Progress goes to stderr, the table to stdout (`--json FILE` too).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs, USAGE, UsageError, type Options, type ScenarioKey } from './args.ts';
import { CheckFailed } from './checks.ts';
import { describeUnexpectedExits, killAllChildren, stopAllChildren, type Child } from './child-process.ts';
import { DatabaseSetupError, openBenchDatabase, seedBig, type BenchDatabase } from './database.ts';
import { rssMb } from './proc-stats.ts';
import { addRatios, summarize, table, type Group, type Row } from './report.ts';
import { runCryptoCeiling, startDatabaseCeiling, startHttpCeiling } from './scenarios/ceilings.ts';
import { discoveryScenario, exchangeScenario, jwksScenario, refreshScenario, userinfoScenario, type OAuthTarget } from './scenarios/oauth.ts';
import { authorizeScenario, ourTarget, restReadScenario, restWriteScenario, type OurSession } from './scenarios/ours.ts';
import { PEER_NOTE, startPeer } from './scenarios/peer.ts';
import type { Scenario } from './scenarios/scenario.ts';
import { serverEntry, startServer } from './server-process.ts';
import { createRequire } from 'node:module';

/** More failed responses than this in a scenario fails the bench. */
const HANDFUL = 5;

const log = (line: string) => process.stderr.write(`${line}\n`);

function ourScenarios(server: Child, target: OAuthTarget, session: OurSession, options: Options): Scenario[] {
  const o = { connections: options.connections };
  const all: Record<ScenarioKey, () => Scenario> = {
    exchange: () => exchangeScenario(target, o),
    refresh: () => refreshScenario(target, o),
    userinfo: () => userinfoScenario(target, o),
    authorize: () => authorizeScenario(target, session, o),
    discovery: () => discoveryScenario(target, o),
    jwks: () => jwksScenario(target, o),
    'rest-read': () => restReadScenario(server, session, o),
    'rest-write': () => restWriteScenario(server, session, o),
  };
  return (Object.keys(all) as ScenarioKey[]).filter((k) => options.only.has(k)).map((k) => all[k]());
}

async function measure(s: Scenario, group: Group, options: Options, watch?: Child): Promise<Row> {
  log(`▸ ${s.name}: checking a sample response`);
  const warningsBefore = watch?.warnings.length ?? 0;
  try {
    await s.check();
  } catch (error) {
    if (error instanceof CheckFailed) throw new CheckFailed(`${s.name}: ${error.message}`);
    throw error;
  }
  const runs = [];
  for (let i = 1; i <= options.runs; i++) {
    const r = await s.run(options.duration);
    runs.push(r);
    const statuses = r.bad > 0 ? `  statuses ${JSON.stringify(r.statuses)}` : '';
    log(`  run ${i}/${options.runs}: ${r.rps.toFixed(0)} ${s.unit}, p50 ${r.p50} ms, p99 ${r.p99} ms, failed ${r.bad}, `
      + `CPU ${r.cpuCores?.toFixed(2) ?? '?'} cores, peak RSS ${r.peakRssMb?.toFixed(0) ?? '?'} MB${statuses}`);
  }
  if (watch && watch.warnings.length > warningsBefore) {
    const count = watch.warnings.length - warningsBefore;
    const note = `${s.name}: the ${watch.name} logged ${count} warning/error line(s), first: ${watch.warnings[warningsBefore]!.slice(0, 300)}`;
    s.notes.push(note);
    log(`  NOTE ${note}`);
  }
  return summarize(s.key, s.name, group, s.unit, runs);
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

async function main(options: Options): Promise<number> {
  const notes: string[] = [];
  const rows: Row[] = [];
  const bigRows: Row[] = [];
  let database: BenchDatabase | undefined;
  let interrupted = false;
  const cleanup = async () => {
    await stopAllChildren().catch(() => {});
    await database?.drop().catch((error: unknown) => log(`could not drop the bench database: ${String(error)}`));
    database = undefined;
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
    const server = await startServer({ databaseUrl: database.url, dataDir: database.dataDir });
    const rssAfterStart = rssMb(server.pid);
    log(`server ready in ${(server.startupMs / 1000).toFixed(1)} s (first start: migrations, keys, demo data), RSS ${rssAfterStart?.toFixed(0) ?? '?'} MB`);
    const o = { connections: options.connections };
    const { target, session } = await ourTarget(server, o);
    log(`logged in as foodsaver@example.org (user ${session.userId}), consent remembered for demo-app`);

    const ours = ourScenarios(server, target, session, options);
    for (const s of ours) rows.push(await measure(s, 'ours', options, server));
    for (const s of ours) notes.push(...s.notes);
    const rssAfterLoad = rssMb(server.pid);

    const peerKeys = ['exchange', 'refresh', 'userinfo', 'discovery', 'jwks'].filter((k) => options.only.has(k as ScenarioKey));
    if (options.peer && peerKeys.length > 0) {
      const peer = await startPeer();
      log(`peer: oidc-provider ${peerVersion()} on ${peer.child.url}`);
      const builders: Record<string, () => Scenario> = {
        exchange: () => exchangeScenario(peer.target, o),
        refresh: () => refreshScenario(peer.target, o),
        userinfo: () => userinfoScenario(peer.target, o),
        discovery: () => discoveryScenario(peer.target, o),
        jwks: () => jwksScenario(peer.target, o),
      };
      for (const key of peerKeys) {
        const s = builders[key]!();
        rows.push(await measure(s, 'peer', options, peer.child));
        notes.push(...s.notes);
      }
      await peer.child.stop();
      notes.push(PEER_NOTE.replace('%VERSION%', peerVersion()));
    }

    if (options.ceilings) {
      const http = await startHttpCeiling(o);
      rows.push(await measure(http.scenario, 'ceiling', options));
      await http.child.stop();
      const db = await startDatabaseCeiling(o, database.url, session.userId);
      rows.push(await measure(db.scenario, 'ceiling', options));
      await db.child.stop();
      log('▸ crypto ceiling: RS256 sign, then verify (node:crypto callback API, 2048-bit KeyObject, 64 in flight)');
      const sign = [];
      const verify = [];
      for (let i = 1; i <= options.runs; i++) {
        const r = await runCryptoCeiling(options.duration);
        sign.push(r.sign);
        verify.push(r.verify);
        log(`  run ${i}/${options.runs}: sign ${r.sign.rps.toFixed(0)}/s (${r.sign.cpuCores?.toFixed(2)} cores), verify ${r.verify.rps.toFixed(0)}/s (${r.verify.cpuCores?.toFixed(2)} cores)`);
      }
      rows.push(summarize('crypto-sign', 'crypto ceiling: RS256 sign', 'ceiling', 'ops/s', sign));
      rows.push(summarize('crypto-verify', 'crypto ceiling: RS256 verify', 'ceiling', 'ops/s', verify));
      notes.push(database.kind === 'pglite'
        ? 'database ceiling: select id, email from users where id = $1 on an in-memory PGlite (one connection, like the server\'s embedded database)'
        : 'database ceiling: select id, email from users where id = $1 through a pg pool of 10 (the server\'s size) on the bench database');
    }
    addRatios(rows);

    if (options.big) {
      log('▸ --big: seeding 100,000 users, 500,000 grants with 1,000,000 refresh-token rows, 1,000,000 expired codes');
      await seedBig(database.url!, log);
      for (const s of ourScenarios(server, target, session, options)) {
        const row = await measure(s, 'ours', options, server);
        const empty = rows.find((r) => r.group === 'ours' && r.key === row.key);
        if (empty && empty.rate > 0) row.vsEmpty = row.rate / empty.rate;
        bigRows.push(row);
      }
    }

    notes.unshift(
      `server ready ${(server.startupMs / 1000).toFixed(1)} s after spawn on an empty database (migrations, key generation, demo data); `
      + `RSS ${rssAfterStart?.toFixed(0) ?? '?'} MB after start, ${rssAfterLoad?.toFixed(0) ?? '?'} MB after the load`,
      'authorize: codes/s; a good response is a 303 with a code, "non-2xx" counts any other answer',
      'non-2xx: failed responses (other statuses, connection errors, timeouts) summed over the runs; rate, p50, p99, CPU: medians; RSS: peak',
    );
    const header = [
      `npm run bench — ${new Date().toISOString()}`,
      `machine: ${os.cpus().length} cores, ${cpuModel()}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB; Node ${process.version}`,
      `database: ${database.describe}`,
      `server: ${entry.describe}, LOG_LEVEL=warn; load: autocannon in the bench process, ${options.connections} connections over loopback`,
      `each scenario: ${options.duration} s × ${options.runs} run(s), medians`,
    ];
    const failedRows = [...rows, ...bigRows].filter((r) => r.bad > HANDFUL);
    const crashed = describeUnexpectedExits();
    const uniqueNotes = [...new Set(notes)];
    const text = [
      ...header, '',
      table(rows), '',
      ...(bigRows.length ? ['--big (100,000 users, 1,000,000 refresh tokens, 1,000,000 expired codes):', table(bigRows, { big: true }), ''] : []),
      ...uniqueNotes.map((n) => `- ${n}`),
      ...failedRows.map((r) => `FAILED: ${r.name} had ${r.bad} failed responses (${JSON.stringify(r.runs.map((x) => x.statuses))})`),
      ...crashed.map((c) => `FAILED: ${c}`),
    ].join('\n');
    process.stdout.write(`\n${text}\n`);
    if (options.json) {
      writeFileSync(options.json, `${JSON.stringify({
        date: new Date().toISOString(),
        machine: { cores: os.cpus().length, cpu: cpuModel(), memoryGb: os.totalmem() / 2 ** 30, node: process.version },
        database: { kind: database.kind, describe: database.describe },
        server: entry.describe,
        options: { duration: options.duration, runs: options.runs, connections: options.connections, only: [...options.only], peer: options.peer, ceilings: options.ceilings, big: options.big },
        startupMs: server.startupMs, rssAfterStartMb: rssAfterStart, rssAfterLoadMb: rssAfterLoad,
        rows, bigRows, notes: uniqueNotes,
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
