/**
 * `npm start` as an operator runs it: a real process, real port, real files.
 * Each test starts real processes: the compiled server when `dist/` was built
 * from the sources as they are (as in CI, after `npm run build`), else the
 * sources through tsx (a checkout being edited), about 0.9 s of CPU more a
 * start. Seconds on a quiet machine, a minute or more on a loaded 2-core one
 * (a first start there took over 60 s); START_TEST_TIMEOUT_MS keeps every test
 * far from it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const START_TEST_TIMEOUT_MS = 300_000;

export interface Running { child: ChildProcess; output: () => string; exited: Promise<number | null> }

/** Every process a test started: one left running (a failed test) would hold the data directory's lock for the next. */
const children = new Set<ChildProcess>();

/** The server's sources through tsx from any working directory (the default command resolves both from the checkout). */
export const SERVER_FROM_ANY_DIRECTORY = [process.execPath, '--import', pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href,
  path.join(ROOT, 'src/main.ts')] as const;

let serverCommand: readonly string[] | undefined;

/** `dist/main.js` when `npm run build` made it from the sources as they are now (scripts/build.mjs --check), else `src/main.ts` through tsx. */
export function serverFromCheckout(): readonly string[] {
  serverCommand ??= spawnSync(process.execPath, ['scripts/build.mjs', '--check'], { cwd: ROOT }).status === 0
    ? [process.execPath, 'dist/main.js']
    : [process.execPath, '--import', 'tsx', 'src/main.ts'];
  return serverCommand;
}

export function start(env: Record<string, string>, command: readonly string[] = serverFromCheckout(), cwd = ROOT): Running {
  const [program, ...args] = command;
  const child = spawn(program!, args, {
    cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  children.add(child);
  void exited.then(() => children.delete(child));
  return { child, output: () => output, exited };
}

/** Waits for a line; ends early when the process exits. The deadline is the test's own limit, not a shorter one. */
export async function waitFor(running: Running, text: string, timeoutMs = START_TEST_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!running.output().includes(text)) {
    if (Date.now() > deadline || running.child.exitCode !== null) throw new Error(`"${text}" not seen:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls new connections until one is refused; returns the error code. */
export async function waitUntilRefused(port: number, timeoutMs = 5_000): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const code = await new Promise<string | undefined>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(undefined); });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    if (code !== undefined) return code;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One data directory for a file's tests, removed after the last; after each
 * test, what it left running (a failed test) is killed, since it would hold
 * the directory's lock for the next.
 */
export function useStartDataDir(): { readonly dataDir: string } {
  let dataDir = '';
  beforeAll(async () => { dataDir = await mkdtemp(path.join(tmpdir(), 'fs-start-')); });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));
  afterEach(stopStartedProcesses);
  return { get dataDir() { return dataDir; } };
}

async function stopStartedProcesses(): Promise<void> {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}
