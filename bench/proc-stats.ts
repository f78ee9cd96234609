/**
 * CPU and memory of a child process from /proc (Linux): CPU time as
 * utime + stime, peak resident memory by sampling VmRSS every 100 ms.
 * Elsewhere the figures are simply missing (null).
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every Linux build that matters). */
const TICKS_PER_SECOND = 100;

/** CPU seconds used so far by the process (all its threads), or null. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Resident memory in MB, or null. */
export function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * CPU of helper processes (the database's backends, redis-server) over a run:
 * the pids are listed at the start and at the end (the list is asynchronous:
 * pg_stat_activity), their CPU read then and every 100 ms between, so that a
 * backend ending mid-run still counts up to its last reading; one first seen
 * at the end counts from its start.
 */
export function meterHelpers(list: () => Promise<number[]>): { stop(): Promise<number | null> } {
  const startedAt = performance.now();
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const read = (pid: number, into: Map<number, number>) => {
    const cpu = cpuSeconds(pid);
    if (cpu !== null) into.set(pid, cpu);
  };
  const listed = list().then((pids) => { for (const pid of pids) { read(pid, first); read(pid, last); } }, () => {});
  const timer = setInterval(() => { for (const pid of first.keys()) read(pid, last); }, 100);
  return {
    async stop() {
      clearInterval(timer);
      await listed;
      const seconds = (performance.now() - startedAt) / 1000;
      let pids: number[];
      try { pids = await list(); } catch { return null; }
      for (const pid of [...first.keys(), ...pids]) read(pid, last);
      if (last.size === 0) return null;
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (first.get(pid) ?? 0);
      return total / seconds;
    },
  };
}

export interface ProcessMeter {
  /** Stops sampling: CPU in cores over the wall time since start, and the peak RSS in MB. */
  stop(): { cpuCores: number | null; peakRssMb: number | null; seconds: number };
}

export function meterProcess(pid: number): ProcessMeter {
  const startedAt = performance.now();
  const cpuAtStart = cpuSeconds(pid);
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const rss = rssMb(pid);
    if (rss !== null && (peak === null || rss > peak)) peak = rss;
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      const seconds = (performance.now() - startedAt) / 1000;
      const cpuAtEnd = cpuSeconds(pid);
      const rss = rssMb(pid);
      if (rss !== null && (peak === null || rss > peak)) peak = rss;
      const cpuCores = cpuAtStart === null || cpuAtEnd === null ? null : (cpuAtEnd - cpuAtStart) / seconds;
      return { cpuCores, peakRssMb: peak, seconds };
    },
  };
}
