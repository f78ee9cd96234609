#!/usr/bin/env node
// The package's `bin`: the operator CLI (see README, "Command line"). Runs the
// compiled dist/cli.js (`npm run build`, which `npm start` runs) when it is at
// least as new as every source file; otherwise the TypeScript sources through
// tsx, a development dependency — so a checkout being edited never runs stale code.
import { existsSync, readdirSync, statSync } from 'node:fs';
import nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

// Node's compile cache (as in src/main.ts: os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; Node 22.0 has none): a later command reuses the
// compiled code of the modules it imports below (~0.1 s of CPU less per command).
nodeModule.enableCompileCache?.();

const root = new URL('../', import.meta.url);
const compiled = new URL('dist/cli.js', root);
const buildInfo = new URL('dist/.tsbuildinfo', root);
const sources = fileURLToPath(new URL('src/', root));

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(file) : statSync(file).mtimeMs);
  }
  return newest;
}

function isBuildCurrent() {
  if (!existsSync(compiled) || !existsSync(buildInfo)) return false;
  return !existsSync(sources) || statSync(buildInfo).mtimeMs >= newestSource(sources);
}

async function loadCli() {
  if (isBuildCurrent()) return import(compiled.href);
  try {
    const { register } = await import('tsx/esm/api');
    register();
  } catch {
    if (existsSync(compiled)) return import(compiled.href);
    throw new Error('Neither a build (npm run build) nor tsx (npm install) is available.');
  }
  return import(new URL('src/cli.ts', root).href);
}

const { runCli } = await loadCli();
process.exitCode = await runCli(process.argv.slice(2));
