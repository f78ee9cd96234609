/**
 * The machine's ceilings, each in a child process of its own: a bare Fastify
 * route (HTTP), a bare Fastify route with one indexed query (database), and
 * RS256 sign/verify on the threadpool (crypto).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { check, CheckFailed } from '../checks.ts';
import { freePort, startChild, type Child } from '../child-process.ts';
import { runLoad, type RunResult } from '../load.ts';
import { childEnv } from '../server-process.ts';
import type { LoadOptions } from './oauth.ts';
import { send, type Scenario } from './scenario.ts';

const DIR = path.join(import.meta.dirname, '..', 'ceilings');

export async function startHttpCeiling(o: LoadOptions): Promise<{ child: Child; scenario: Scenario }> {
  const port = await freePort();
  const child = await startChild({
    name: 'HTTP ceiling', port, readyPath: '/', args: ['--import', 'tsx', path.join(DIR, 'http-server.ts')],
    env: childEnv({ PORT: String(port) }),
  });
  return {
    child,
    scenario: {
      key: 'http-ceiling', name: 'HTTP ceiling', unit: 'req/s', pid: child.pid, notes: [],
      async check() {
        const r = await send(`${child.url}/`);
        check(r.status === 200 && JSON.parse(r.text).status === 'ok', `HTTP ceiling answered ${r.status} ${r.text}`);
      },
      run: (duration) => runLoad(child.pid, { url: child.url, connections: o.connections, duration, path: '/' }),
    },
  };
}

export async function startDatabaseCeiling(o: LoadOptions, databaseUrl: string | undefined, userId: number): Promise<{ child: Child; scenario: Scenario }> {
  const port = await freePort();
  const child = await startChild({
    name: 'database ceiling', port, readyPath: '/health', args: ['--import', 'tsx', path.join(DIR, 'db-server.ts')],
    env: childEnv({ PORT: String(port), DATABASE_URL: databaseUrl }),
  });
  const userPath = `/user/${userId}`;
  return {
    child,
    scenario: {
      key: 'db-ceiling', name: 'database ceiling', unit: 'req/s', pid: child.pid, notes: [],
      async check() {
        const r = await send(child.url + userPath);
        check(r.status === 200 && typeof JSON.parse(r.text).email === 'string', `database ceiling answered ${r.status} ${r.text}`);
      },
      run: (duration) => runLoad(child.pid, { url: child.url, connections: o.connections, duration, path: userPath }),
    },
  };
}

interface CryptoPhase { ops: number; seconds: number; opsPerSecond: number; cpuCores: number; peakRssMb: number }

/** One run of the crypto ceiling: RS256 sign, RS256 verify, ES256 sign, each for `duration`. */
export function runCryptoCeiling(duration: number): Promise<{ sign: RunResult; verify: RunResult; signEs256: RunResult }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(DIR, 'crypto.ts')], {
      env: childEnv({ DURATION: String(duration) }), stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    proc.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    proc.once('error', reject);
    proc.once('exit', (code) => {
      if (code !== 0) return reject(new CheckFailed(`crypto ceiling exited with ${code}: ${err.trim()}`));
      try {
        const r = JSON.parse(out.trim().split('\n').pop()!) as { sign: CryptoPhase; verify: CryptoPhase; signEs256: CryptoPhase };
        const toRun = (p: CryptoPhase): RunResult => ({
          rps: p.opsPerSecond, good: p.ops, bad: 0, statuses: {}, p50: NaN, p99: NaN,
          cpuCores: p.cpuCores, helperCpuCores: null, peakRssMb: p.peakRssMb, seconds: p.seconds, endedEarly: false,
        });
        resolve({ sign: toRun(r.sign), verify: toRun(r.verify), signEs256: toRun(r.signEs256) });
      } catch (error) {
        reject(new CheckFailed(`crypto ceiling printed no result: ${String(error)} ${out} ${err}`));
      }
    });
  });
}
