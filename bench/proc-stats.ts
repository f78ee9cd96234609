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
