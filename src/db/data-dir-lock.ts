/**
 * The embedded database can be opened by one process only. A lock file names
 * its owner; a second process (a CLI command while the server runs) fails at
 * once instead of corrupting the files.
 *
 * - The owner is its pid and, on Linux, its start time (/proc/<pid>/stat field
 *   22): a pid reused by another process is not the owner, nor is this very pid
 *   when this process does not hold the lock (a container restarted after
 *   kill -9 runs the server as pid 1 again).
 * - A lock file appears complete: written to a private file, then hard-linked
 *   into place (fails if one exists).
 * - A stale lock is removed only by the process that claimed its inode with a
 *   second hard link (`.takeover-<inode>`, also exclusive), so two processes
 *   taking over at once can never remove each other's fresh lock.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class DataDirBusyError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(`The embedded database in ${dataDir} is in use by process ${pid} (is the server running?). ` +
      'Stop it first, or run the server and the CLI on PostgreSQL with DATABASE_URL.');
    this.name = 'DataDirBusyError';
  }
}

export interface DataDirLock {
  release(): void;
}

export const LOCK_FILE = 'embedded-db.lock';
const ATTEMPTS = 100;
const RETRY_MS = 10;
/** A takeover is a few system calls; a claim older than this was left by a process that died during one. */
const ABANDONED_CLAIM_MS = 1_000;

/** Lock files held by this process (path → inode): "held by me" versus "left by an earlier process with my pid". */
const heldHere = new Map<string, number>();

interface LockFile { readonly pid: number; readonly startTime: string | undefined; readonly ino: number }

export function lockDataDir(dataDir: string): DataDirLock {
  // Owner only: PGlite writes the database's files as the umask lets it (0666 under a umask of 0).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const ino = tryCreate(file);
    if (ino !== undefined) {
      heldHere.set(file, ino);
      return { release: () => release(file, ino) };
    }
    const lock = readLock(file);
    if (lock === undefined) continue; // released meanwhile
    if (isOwnerAlive(file, lock)) throw new DataDirBusyError(dataDir, lock.pid);
    if (!removeStale(file, lock.ino)) sleep(RETRY_MS);
  }
  throw new Error(`could not lock ${dataDir}: another process kept taking over its stale lock file`);
}

/** "<pid> <start time>" of this process. */
export function ownerLine(pid = process.pid): string {
  const startTime = processStartTime(pid);
  return startTime === undefined ? String(pid) : `${pid} ${startTime}`;
}

function tryCreate(file: string): number | undefined {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}`;
  writeFileSync(temp, ownerLine(), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, file);
    return statSync(temp).ino;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return undefined;
    throw error;
  } finally {
    unlinkSync(temp);
  }
}

function readLock(file: string): LockFile | undefined {
  try {
    const { ino } = statSync(file);
    return { ...parseOwner(readFileSync(file, 'utf8')), ino };
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function parseOwner(text: string): { pid: number; startTime: string | undefined } {
  const [pid, startTime] = text.trim().split(/\s+/);
  return { pid: /^\d+$/.test(pid ?? '') ? Number(pid) : 0, startTime };
}

function isOwnerAlive(file: string, lock: { pid: number; startTime: string | undefined; ino: number }): boolean {
  if (lock.pid === process.pid) return heldHere.get(file) === lock.ino;
  if (lock.pid <= 0 || !isAlive(lock.pid)) return false;
  if (lock.startTime === undefined) return true; // written without a start time: the pid is all we know
  return processStartTime(lock.pid) === lock.startTime;
}

/** Removes the stale lock with inode `ino`, unless another process is doing so. Returns whether to retry at once. */
function removeStale(file: string, ino: number): boolean {
  const claim = `${file}.takeover-${ino}`;
  try {
    linkSync(file, claim);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return true;
    if (errorCode(error) !== 'EEXIST') throw error;
    const claimed = statSync(claim, { throwIfNoEntry: false });
    if (claimed && Date.now() - claimed.ctimeMs > ABANDONED_CLAIM_MS) rmSync(claim, { force: true });
    return false;
  }
  try {
    // Ours alone now. The file we linked may be a newer lock (then look again), or reuse the inode number: check its owner again.
    const claimed = statSync(claim);
    if (claimed.ino === ino && !isOwnerAlive(file, { ...parseOwner(readFileSync(claim, 'utf8')), ino })) rmSync(file, { force: true });
  } finally {
    unlinkSync(claim);
  }
  return true;
}

function release(file: string, ino: number): void {
  if (heldHere.get(file) !== ino) return;
  heldHere.delete(file);
  if (statSync(file, { throwIfNoEntry: false })?.ino === ino) unlinkSync(file);
}

/** Start time in clock ticks since boot (Linux), or undefined where /proc is not available. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command) is parenthesised and may hold spaces; field 22 is the 20th after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether a process with this id runs (one of another user's counts: signalling it is merely not permitted). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}
