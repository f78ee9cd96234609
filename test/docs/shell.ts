/**
 * Runs a documented `sh` block as an operator would paste it: bash, with
 * `set -eo pipefail` so that any failing command fails the run, from a
 * working directory of the test's own under the checkout's ignored tmp/
 * (`npm run` finds the project from there; files a block writes, a cookie
 * jar, stay out of the checkout).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { againstServer, ROOT, shownOutput, type ExampleBlock } from '../helpers/markdown-examples.ts';

export interface ShellRun { code: number | null; out: string; err: string }

export interface Shell {
  readonly cwd: string;
  /** Runs the script to its end. */
  run(script: string, env?: Record<string, string>): Promise<ShellRun>;
  /** Starts the script; `waitFor` resolves the first match of a pattern in its standard output. */
  start(script: string, env?: Record<string, string>): RunningShell;
}

export interface RunningShell {
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  readonly exited: Promise<ShellRun>;
  /** Ends the script's whole process group (npm, node, a server). */
  stop(): void;
}

function spawnShell(script: string, cwd: string, env: Record<string, string>): RunningShell {
  const child = spawn('bash', ['-c', `set -eo pipefail\n${script}`], {
    cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false', NODE_ENV: 'test', ...env },
  });
  let out = '';
  let err = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); for (const watch of watchers) watch(); });
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  const exited = new Promise<ShellRun>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return {
    exited,
    waitFor: (pattern) => new Promise((resolve, reject) => {
      const look = () => {
        const match = pattern.exec(out);
        if (match) { watchers.delete(look); resolve(match); }
      };
      watchers.add(look);
      look();
      void exited.then((r) => reject(new Error(`exited ${r.code} before printing ${pattern}:\n${r.out}\n${r.err}`)));
    }),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    },
  };
}

/** A shell for one test file, its working directory removed after the file. */
export function useShell(): Shell {
  let cwd = '';
  const started = new Set<RunningShell>();
  beforeAll(async () => {
    mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
    cwd = await mkdtemp(path.join(ROOT, 'tmp', 'docs-'));
  });
  afterAll(async () => {
    for (const running of started) running.stop();
    await Promise.all([...started].map((running) => running.exited));
    await rm(cwd, { recursive: true, force: true });
  });
  return {
    get cwd() { return cwd; },
    run: (script, env = {}) => spawnShell(script, cwd, env).exited,
    start(script, env = {}) {
      const running = spawnShell(script, cwd, env);
      started.add(running);
      return running;
    },
  };
}

/**
 * Runs a documented `curl -si` block against the server and checks the answer
 * against the output block the document shows after it: the same status line,
 * and the header shown on its second line. Answers the JSON body.
 */
export async function runCurlAsShown(shell: Shell, block: ExampleBlock, baseUrl: string): Promise<Record<string, unknown>> {
  const result = await shell.run(againstServer(block, baseUrl));
  expect(result.code, result.err).toBe(0);
  const [head = '', body = ''] = result.out.split(/\r?\n\r?\n/);
  const headers = head.split(/\r?\n/);
  const shown = shownOutput(block).text.split('\n');
  expect(headers[0]).toBe(shown[0]);
  expect(headers).toContain(shown[1]);
  return JSON.parse(body) as Record<string, unknown>;
}
