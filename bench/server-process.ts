/**
 * Our server as the child under test, started the way `npm start` does: the
 * build (`npm run build`, incremental) first, then the compiled `dist/main.js`,
 * with `node` itself as the child, so that its pid is the server's.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, startChild, type Child } from './child-process.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Builds, then names the entry with the `node` flags of `npm start` (read from
 * package.json, so that the bench runs what `npm start` runs). The entry runs
 * with its own folder as the working directory and a relative path
 * (`main.js`), which changes nothing for the server (every path it uses is
 * absolute or given) but keeps a `pkill -f dist/main.js` aimed at a server
 * started by hand from taking the bench's server down mid-run.
 */
export function serverEntry(): { args: string[]; cwd: string; describe: string } {
  if (!built) {
    const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (build.status !== 0) throw new Error('npm run build failed');
    built = true;
  }
  const flags = startFlags();
  return { args: [...flags, 'main.js'], cwd: path.join(ROOT, 'dist'), describe: `node ${[...flags, 'dist/main.js'].join(' ')} (as npm start runs it, after npm run build)` };
}

/** The flags `npm start` gives `node` before `dist/main.js`. */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const command = /\bexec node((?: --[\w-]+(?:=\S+)?)*) dist\/main\.js$/.exec(pkg.scripts.start);
  if (!command) throw new Error(`package.json's start script does not end in "exec node [flags] dist/main.js": ${pkg.scripts.start}`);
  return command[1]!.trim().split(/\s+/).filter((flag) => flag !== '');
}

let built = false;

export interface ServerSetup {
  databaseUrl: string | undefined;
  dataDir: string;
  /** A given port (a restart keeps the issuer, PUBLIC_URL); a free one otherwise. */
  port?: number;
  /** More environment for the server. */
  env?: Record<string, string>;
  /** How often /ready is polled while it starts (ms). */
  pollMs?: number;
  /** How long it may take to be ready (ms; 120 s unless said). */
  timeoutMs?: number;
  /** A folder for a V8 CPU profile of the run (`node --cpu-prof`), written when the server stops. */
  cpuProfDir?: string;
}

/** Environment of a child: the parent's minus anything that would change the server's behaviour. */
export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['NODE_ENV', 'DATABASE_URL', 'DATA_DIR', 'PUBLIC_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'NODE_OPTIONS',
    'OAUTH_PRIVATE_KEY', 'OAUTH_PRIVATE_KEY_FILE', 'OAUTH_ENCRYPTION_KEY', 'OAUTH_ENCRYPTION_KEY_FILE', 'TRUST_PROXY']) {
    delete env[name];
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export async function startServer(setup: ServerSetup): Promise<Child & { startupMs: number }> {
  const port = setup.port ?? await freePort();
  const { args: entryArgs, cwd } = serverEntry();
  const args = setup.cpuProfDir === undefined ? entryArgs : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(setup.cpuProfDir)}`, ...entryArgs];
  const started = performance.now();
  const child = await startChild({
    name: 'server',
    args,
    cwd,
    port,
    readyPath: '/ready',
    ...(setup.pollMs !== undefined ? { pollMs: setup.pollMs } : {}),
    ...(setup.timeoutMs !== undefined ? { timeoutMs: setup.timeoutMs } : {}),
    env: childEnv({
      PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: setup.databaseUrl, DATA_DIR: setup.dataDir, LOG_LEVEL: 'warn',
      // Every load connection comes from 127.0.0.1: --connections above the per-address default (64) must not be refused.
      MAX_CONNECTIONS_PER_ADDRESS: '1024', ...setup.env,
    }),
  });
  return Object.assign(child, { startupMs: performance.now() - started });
}
