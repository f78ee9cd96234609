/** Medians of the runs, ratios, the plain-text table and the JSON document. */
import type { RunResult } from './load.ts';

export type Group = 'ours' | 'peer' | 'ceiling';

export interface Row {
  key: string;
  name: string;
  group: Group;
  unit: 'req/s' | 'codes/s' | 'ops/s';
  runs: RunResult[];
  /** Medians over the runs (peak RSS: the highest). */
  rate: number;
  p50: number;
  p99: number;
  /** Failed responses over all runs. */
  bad: number;
  cpuCores: number | null;
  peakRssMb: number | null;
  vsPeer?: number;
  vsCeiling?: { ratio: number; against: string };
  /** `--big` rerun: big ÷ empty. */
  vsEmpty?: number;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(key: string, name: string, group: Group, unit: Row['unit'], runs: RunResult[]): Row {
  const cpu = runs.map((r) => r.cpuCores).filter((v): v is number => v !== null);
  const rss = runs.map((r) => r.peakRssMb).filter((v): v is number => v !== null);
  return {
    key, name, group, unit, runs,
    rate: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    bad: runs.reduce((sum, r) => sum + r.bad, 0),
    cpuCores: cpu.length ? median(cpu) : null,
    peakRssMb: rss.length ? Math.max(...rss) : null,
  };
}

/** ours ÷ peer and ours ÷ ceiling, for the rows that have a counterpart. */
export function addRatios(rows: Row[]): void {
  const find = (group: Group, key: string) => rows.find((r) => r.group === group && r.key === key);
  const ceilings: Record<string, { key: string; divide: number; against: string }> = {
    discovery: { key: 'http-ceiling', divide: 1, against: 'HTTP' },
    jwks: { key: 'http-ceiling', divide: 1, against: 'HTTP' },
    'rest-read': { key: 'db-ceiling', divide: 1, against: 'database' },
    'rest-write': { key: 'db-ceiling', divide: 1, against: 'database' },
    authorize: { key: 'db-ceiling', divide: 1, against: 'database' },
    exchange: { key: 'crypto-sign', divide: 2, against: 'sign ÷ 2' },
    refresh: { key: 'crypto-sign', divide: 1, against: 'sign' },
  };
  for (const row of rows.filter((r) => r.group === 'ours')) {
    const peer = find('peer', row.key);
    if (peer && peer.rate > 0) row.vsPeer = row.rate / peer.rate;
    const c = ceilings[row.key];
    const ceiling = c && find('ceiling', c.key);
    if (c && ceiling && ceiling.rate > 0) row.vsCeiling = { ratio: row.rate / (ceiling.rate / c.divide), against: c.against };
  }
}

const fmt = {
  rate: (v: number) => (Number.isFinite(v) ? v.toLocaleString('en-US', { maximumFractionDigits: v >= 100 ? 0 : 1 }) : '–'),
  ms: (v: number) => (Number.isFinite(v) ? v.toFixed(v >= 10 ? 0 : 1) : '–'),
  num: (v: number | null | undefined, digits: number) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits)),
};

export function table(rows: readonly Row[], options: { big?: boolean } = {}): string {
  const header = ['scenario', 'rate', 'unit', 'p50 ms', 'p99 ms', 'non-2xx', 'CPU cores', 'peak RSS MB', 'ours÷peer', 'ours÷ceiling'];
  if (options.big) header.push('big÷empty');
  const body = rows.map((r) => {
    const cells = [
      r.name, fmt.rate(r.rate), r.unit, fmt.ms(r.p50), fmt.ms(r.p99), r.group === 'ceiling' && r.unit === 'ops/s' ? '–' : String(r.bad),
      fmt.num(r.cpuCores, 2), fmt.num(r.peakRssMb, 0),
      r.vsPeer === undefined ? '' : r.vsPeer.toFixed(2),
      r.vsCeiling === undefined ? '' : `${r.vsCeiling.ratio.toFixed(2)} (${r.vsCeiling.against})`,
    ];
    if (options.big) cells.push(r.vsEmpty === undefined ? '' : r.vsEmpty.toFixed(2));
    return cells;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 2 || i >= 9 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  let group: Group | undefined;
  for (let i = 0; i < rows.length; i++) {
    if (group !== undefined && rows[i]!.group !== group) out.push('');
    group = rows[i]!.group;
    out.push(line(body[i]!));
  }
  return out.join('\n');
}
