/** The data directory's lock file: its owner line, stale locks (a reused or own pid, an abandoned claim) taken over by exactly one process. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { link, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirBusyError, LOCK_FILE, lockDataDir, ownerLine } from '../../src/db/data-dir-lock.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOCK_MODULE = fileURLToPath(new URL('../../src/db/data-dir-lock.ts', import.meta.url));
const HAS_PROC = existsSync('/proc/self/stat');

describe('data directory lock', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(path.join(tmpdir(), 'fs-lock-')); });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const lockFile = () => path.join(dir, LOCK_FILE);

  it('creates a missing data directory readable by its owner only (the database files in it are not)', async () => {
    const created = path.join(dir, 'data', 'nested');
    lockDataDir(created).release();
    expect((await stat(created)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'data'))).mode & 0o777).toBe(0o700);
  });

  it('records the owner as "<pid> <start time>" and removes the file on release', async () => {
    const lock = lockDataDir(dir);
    const [pid, startTime] = (await readFile(lockFile(), 'utf8')).split(' ');
    expect(pid).toBe(String(process.pid));
    if (HAS_PROC) expect(startTime).toMatch(/^\d+$/);
    expect(() => lockDataDir(dir)).toThrow(DataDirBusyError);
    lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over a lock naming this process\'s own pid that this process does not hold (restarted container: pid 1 again)', async () => {
    for (const content of [String(process.pid), `${process.pid} 1`, ownerLine()]) {
      await writeFile(lockFile(), content);
      const lock = lockDataDir(dir);
      expect(await readFile(lockFile(), 'utf8')).toBe(ownerLine());
      lock.release();
    }
  });

  it.runIf(HAS_PROC)('treats a live pid with another start time as a reused pid (stale), and with its own as the owner', async () => {
    await writeFile(lockFile(), `${process.ppid} 1`);
    const lock = lockDataDir(dir);
    lock.release();
    await writeFile(lockFile(), ownerLine(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(`in use by process ${process.ppid}`);
    await writeFile(lockFile(), String(process.ppid)); // written without a start time: the live pid decides
    expect(() => lockDataDir(dir)).toThrow(`in use by process ${process.ppid}`);
  });

  it('waits for a takeover in progress, and clears a claim its process abandoned', async () => {
    await writeFile(lockFile(), '999999999');
    const claim = `${lockFile()}.takeover-${(await stat(lockFile())).ino}`;
    await link(lockFile(), claim);
    const started = Date.now();
    const lock = lockDataDir(dir);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    lock.release();
  });

  it('lets exactly one of several processes take over a stale lock at the same moment', async () => {
    await writeFile(lockFile(), '999999999');
    // Each process says it is ready, then waits for a line on standard input: written to all at once, it
    // starts them together, without a busy wait that would hold the CPU the others need to get ready.
    const code = `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};
      process.stdin.once('data', () => {
        try { lockDataDir(${JSON.stringify(dir)}); console.log('locked'); } catch (e) { console.log(e.name); }
        process.stdin.resume(); process.stdin.on('end', () => process.exit(0));
      });
      console.log('ready');`;
    const children = Array.from({ length: 5 }, () => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] }));
    const lines = children.map((child) => {
      const read: string[] = [];
      const waiting: Array<(line: string) => void> = [];
      let buffered = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
          read.push(buffered.slice(0, end).trim());
          buffered = buffered.slice(end + 1);
        }
        while (read.length > 0 && waiting.length > 0) waiting.shift()!(read.shift()!);
      });
      /** The process's next line on standard output. */
      return () => new Promise<string>((resolve) => (read.length > 0 ? resolve(read.shift()!) : waiting.push(resolve)));
    });
    expect(await Promise.all(lines.map((next) => next()))).toEqual(['ready', 'ready', 'ready', 'ready', 'ready']);
    for (const child of children) child.stdin!.write('go\n');
    const results = await Promise.all(lines.map((next) => next()));
    for (const child of children) child.stdin!.end();
    await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
    expect(results.sort()).toEqual(['DataDirBusyError', 'DataDirBusyError', 'DataDirBusyError', 'DataDirBusyError', 'locked']);
  }, 30_000);
});
