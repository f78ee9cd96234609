/**
 * `npm start`'s build step (scripts/build.mjs --if-stale) on a small project
 * of the same layout: it builds when dist/ is missing, does nothing when
 * nothing changed (a touched file included), and builds again after a change
 * of contents, a new file or a deleted one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from './start-process.ts';

let dir: string;

function build(): { built: boolean; output: string } {
  const before = existsSync(path.join(dir, 'dist/.tsbuildinfo')) ? statSync(path.join(dir, 'dist/.tsbuildinfo')).mtimeMs : undefined;
  const run = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: dir, encoding: 'utf8' });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  const after = existsSync(path.join(dir, 'dist/.tsbuildinfo')) ? statSync(path.join(dir, 'dist/.tsbuildinfo')).mtimeMs : undefined;
  return { built: after !== before, output: run.stdout + run.stderr };
}

/** `--check`'s exit code: 0 when dist/ is current, 1 when a build would run; it builds nothing. */
function check(): number | null {
  const before = existsSync(path.join(dir, 'dist/.tsbuildinfo')) ? statSync(path.join(dir, 'dist/.tsbuildinfo')).mtimeMs : undefined;
  const status = spawnSync(process.execPath, ['scripts/build.mjs', '--check'], { cwd: dir }).status;
  expect(existsSync(path.join(dir, 'dist/.tsbuildinfo')) ? statSync(path.join(dir, 'dist/.tsbuildinfo')).mtimeMs : undefined).toBe(before);
  return status;
}

const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
};

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fs-build-'));
  for (const file of ['scripts/build.mjs', 'scripts/copy-assets.mjs', 'tsconfig.build.json']) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  write('tsconfig.json', JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, allowImportingTsExtensions: true, noEmit: true, skipLibCheck: true, types: [] },
    include: ['src'],
  }));
  write('package-lock.json', '{}');
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  write('src/main.ts', "import { greeting } from './greeting.ts';\nconsole.log(greeting);\n");
  write('src/greeting.ts', "export const greeting = 'one';\n");
  for (const d of ['web/views', 'web/static', 'db/migrations']) mkdirSync(path.join(dir, 'src', d), { recursive: true });
  write('src/db/migrations/001_first.sql', 'select 1;\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/build.mjs --if-stale and --check', { timeout: 300_000 }, () => {
  test('builds a missing dist/, then does nothing while the inputs are the same', () => {
    expect(check()).toBe(1);
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
    expect(build().built).toBe(true);
    expect(check()).toBe(0);
    expect(readFileSync(path.join(dir, 'dist/greeting.js'), 'utf8')).toContain("'one'");
    expect(readFileSync(path.join(dir, 'dist/db/migrations/001_first.sql'), 'utf8')).toBe('select 1;\n');
    expect(build().built).toBe(false);
    // A newer modification time alone is no change.
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, 'src/greeting.ts'), later, later);
    expect(build().built).toBe(false);
  });

  test('a changed file, a new one, a deleted one and a changed asset each build again', () => {
    write('src/greeting.ts', "export const greeting = 'two';\n");
    expect(check()).toBe(1);
    expect(build().built).toBe(true);
    expect(readFileSync(path.join(dir, 'dist/greeting.js'), 'utf8')).toContain("'two'");
    expect(build().built).toBe(false);

    write('src/extra.ts', 'export const extra = 1;\n');
    expect(build().built).toBe(true);
    expect(existsSync(path.join(dir, 'dist/extra.js'))).toBe(true);

    rmSync(path.join(dir, 'src/extra.ts'));
    expect(build().built).toBe(true);

    write('src/db/migrations/002_second.sql', 'select 2;\n');
    build();
    expect(readFileSync(path.join(dir, 'dist/db/migrations/002_second.sql'), 'utf8')).toBe('select 2;\n');
    expect(build().built).toBe(false);
  });

  test('a broken build is not recorded as current: the next start tries again', () => {
    write('src/greeting.ts', 'export const greeting: number = "three";\n');
    const failed = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: dir, encoding: 'utf8' });
    expect(failed.status).not.toBe(0);
    const again = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: dir, encoding: 'utf8' });
    expect(again.status).not.toBe(0);
    expect(again.stdout + again.stderr).toContain('greeting.ts');
  });
});
