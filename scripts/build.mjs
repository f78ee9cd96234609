// `npm run build`: the TypeScript compiled into dist/ (tsc, incremental), then
// the files the compiled server reads beside its modules (copy-assets.mjs);
// afterwards a digest of every input is written to dist/.build-inputs.
//
// `--if-stale` (what `npm start` runs): nothing at all when dist/ was built
// from exactly the inputs there are now — the same source files with the same
// contents, the same compiler settings and lock file. A no-op tsc still costs
// seconds (it reads and checks every file); hashing the inputs takes
// milliseconds. Any change, a deleted or renamed file included, changes the
// digest, and the full build runs.
//
// `--check`: builds nothing; exits 0 when dist/ is current in that sense, 1
// when a build would run (the start tests run the compiled server then).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../..');
const STAMP = path.join(ROOT, 'dist/.build-inputs');
/** Files outside src/ whose change changes the output. */
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/build.mjs', 'scripts/copy-assets.mjs'];

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(file));
    else if (!entry.name.endsWith('.test.ts')) out.push(file);
  }
  return out;
}

/** One digest over the name and contents of every input, in a fixed order. */
function inputsDigest() {
  const hash = createHash('sha256');
  const files = [...sourceFiles(path.join(ROOT, 'src')).sort(), ...SETTINGS.map((f) => path.join(ROOT, f))];
  for (const file of files) {
    hash.update(path.relative(ROOT, file)).update('\0');
    hash.update(existsSync(file) ? readFileSync(file) : '(missing)').update('\0');
  }
  return hash.digest('hex');
}

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const digest = inputsDigest();
const current = existsSync(path.join(ROOT, 'dist/main.js')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === digest;
if (process.argv.includes('--check')) process.exit(current ? 0 : 1);
if (!(process.argv.includes('--if-stale') && current)) {
  run([path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json']);
  run([path.join(ROOT, 'scripts/copy-assets.mjs')]);
  // The digest of the inputs as read before the build: a file changed while it ran makes the next start build again.
  if (!current) writeFileSync(STAMP, `${digest}\n`);
}
