/**
 * Start-up: the compiled server (`node dist/main.js`, as `npm start` runs it
 * once the build is current) started N times on an already migrated database,
 * from spawn to the first 200 of /ready (polled every 10 ms); the median, and
 * the CPU the process used until then.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cpuSeconds } from '../proc-stats.ts';
import { median, type StartResult } from '../report.ts';
import { startServer } from '../server-process.ts';

async function startOnce(databaseUrl: string | undefined, dataDir: string): Promise<{ ms: number; cpuMs: number | null }> {
  // A first start on a busy machine (migrations, the demo dataset) may take minutes: only the time is measured, not bounded.
  const server = await startServer({ databaseUrl, dataDir, pollMs: 10, timeoutMs: 900_000 });
  const cpu = cpuSeconds(server.pid);
  await server.stop();
  return { ms: server.startupMs, cpuMs: cpu === null ? null : cpu * 1000 };
}

async function measure(kind: StartResult['kind'], describe: string, databaseUrl: string | undefined, dataDir: string, times: number,
  log: (line: string) => void): Promise<StartResult> {
  const starts: Array<{ ms: number; cpuMs: number | null }> = [];
  for (let i = 1; i <= times; i++) {
    const s = await startOnce(databaseUrl, dataDir);
    starts.push(s);
    log(`  ${kind} start ${i}/${times}: ready after ${s.ms.toFixed(0)} ms, CPU ${s.cpuMs?.toFixed(0) ?? '?'} ms`);
  }
  const cpu = starts.map((s) => s.cpuMs).filter((v): v is number => v !== null);
  return { kind, describe, startsMs: starts.map((s) => s.ms), medianMs: median(starts.map((s) => s.ms)), cpuMs: cpu.length ? median(cpu) : null };
}

/** On a fresh embedded database (a first start migrates it and loads the demo; not counted), then `times` starts. */
export async function embeddedStarts(times: number, log: (line: string) => void): Promise<StartResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-start-'));
  try {
    log('▸ start: a first start migrates a fresh embedded database (not counted)');
    await startOnce(undefined, dataDir);
    return await measure('embedded', 'embedded PGlite', undefined, dataDir, times, log);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** On the bench's PostgreSQL database, migrated by the run's server. */
export async function postgresStarts(databaseUrl: string, dataDir: string, times: number, log: (line: string) => void): Promise<StartResult> {
  log('▸ start: on the bench\'s PostgreSQL database (migrated)');
  return measure('postgres', 'PostgreSQL', databaseUrl, dataDir, times, log);
}
