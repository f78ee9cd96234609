/**
 * A fixed port that a documented command listens on (the README's `oauth try` examples: 3000, 8000), held by
 * one test process of this machine at a time: two checkouts' test runs side by side would otherwise both
 * listen there, and one would fail with "is in use". The hold is a directory in the system's temporary
 * directory, made atomically, with the holder's process id; a holder that died leaves it to the next.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../../src/db/data-dir-lock.ts';

/** Runs `work` while this process holds `port` among this machine's test runs, waiting for another run to let go of it. */
export async function holdingPort<T>(port: number, work: () => Promise<T>): Promise<T> {
  const hold = path.join(tmpdir(), `foodsharing-test-port-${port}`);
  for (const deadline = Date.now() + 10 * 60_000; !(await taken(hold)); await sleep(100)) {
    if (Date.now() > deadline) throw new Error(`port ${port} stayed held by another test run (${hold})`);
  }
  try {
    return await work();
  } finally {
    await rm(hold, { recursive: true, force: true });
  }
}

/** Whether this process now holds `hold`; a hold whose process is gone is removed first. */
async function taken(hold: string): Promise<boolean> {
  try {
    await mkdir(hold);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const pid = Number(await readFile(path.join(hold, 'pid'), 'utf8').catch(() => 'NaN'));
    if (Number.isInteger(pid) && !isAlive(pid)) await rm(hold, { recursive: true, force: true });
    return false;
  }
  await writeFile(path.join(hold, 'pid'), String(process.pid));
  return true;
}
