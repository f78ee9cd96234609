/**
 * The processes under test: each a separate `node` child whose pid is the
 * process that serves (so /proc/<pid> measures it), started on a free
 * loopback port, waited for until a readiness URL answers 200, and stopped at
 * the end, also when the bench fails or is interrupted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  readonly process: ChildProcess;
  /** Log lines of level warn or worse (pino JSON) seen so far. */
  readonly warnings: string[];
  /** The last lines the child wrote, for error messages. */
  tail(): string;
  stop(): Promise<void>;
}

const running = new Set<Child>();
/** Children that ended without being asked to: name, how, and their last lines. */
const unexpectedExits: string[] = [];

export function describeUnexpectedExits(): string[] {
  return unexpectedExits;
}

/** Kills every child still running (synchronously: usable in an 'exit' handler). */
export function killAllChildren(): void {
  for (const child of running) {
    try { child.process.kill('SIGKILL'); } catch { /* already gone */ }
  }
  running.clear();
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop()));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface StartOptions {
  name: string;
  /** Arguments to `node`. */
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  port: number;
  /** Polled until it answers 200. */
  readyPath: string;
  /** Open an IPC channel (for the peer's code minting). */
  ipc?: boolean;
  timeoutMs?: number;
  /** How often the readiness URL is polled (100 ms unless said). */
  pollMs?: number;
}

export async function startChild(options: StartOptions): Promise<Child> {
  const stdio: Array<'ignore' | 'pipe' | 'ipc'> = ['ignore', 'pipe', 'pipe'];
  if (options.ipc) stdio.push('ipc');
  const proc = spawn(process.execPath, options.args, { env: options.env, stdio, ...(options.cwd ? { cwd: options.cwd } : {}) });
  const lines: string[] = [];
  const warnings: string[] = [];
  let exited: string | undefined;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      if (lines.length > 40) lines.shift();
      const level = /"level":(\d+)/.exec(line);
      if (level && Number(level[1]) >= 40 && warnings.length < 1000) warnings.push(line);
    }
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  let stopping = false;
  const exitedPromise = new Promise<void>((resolve) => proc.once('exit', (code, signal) => {
    exited = signal ? `killed by ${signal}` : `exited with code ${code}`;
    if (!stopping) unexpectedExits.push(`${options.name} (pid ${proc.pid}) ${exited} unexpectedly; its last lines:\n${lines.join('\n')}`);
    resolve();
  }));
  const url = `http://127.0.0.1:${options.port}`;
  const child: Child = {
    name: options.name, pid: proc.pid!, port: options.port, url, process: proc, warnings,
    tail: () => lines.join('\n'),
    stop: async () => {
      running.delete(child);
      stopping = true;
      if (exited) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
  running.add(child);

  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (exited) throw new Error(`${options.name} ${exited} before it was ready:\n${child.tail()}`);
    try {
      const response = await fetch(url + options.readyPath, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return child;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`${options.name} was not ready after ${(options.timeoutMs ?? 120_000) / 1000} s:\n${child.tail()}`);
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
  }
}
