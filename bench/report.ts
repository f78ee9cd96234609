/** Medians of the runs, ratios, targets, the plain-text tables and the JSON document. */
import type { RunResult } from './load.ts';

/** ours; oidc-provider in memory; oidc-provider as deployed (Redis, JWT access tokens); the machine's ceilings. */
export type Group = 'ours' | 'peer' | 'deployed' | 'ceiling';

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
  /** CPU of the database's backends (ours) or redis-server (the peer as deployed), in cores. */
  helperCpuCores: number | null;
  peakRssMb: number | null;
  vsPeer?: number;
  vsDeployed?: number;
  vsCeiling?: { ratio: number; against: string };
  /** `--big` rerun: big ÷ small database. */
  vsSmall?: number;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(key: string, name: string, group: Group, unit: Row['unit'], runs: RunResult[]): Row {
  const cpu = runs.map((r) => r.cpuCores).filter((v): v is number => v !== null);
  const helper = runs.map((r) => r.helperCpuCores).filter((v): v is number => v !== null);
  const rss = runs.map((r) => r.peakRssMb).filter((v): v is number => v !== null);
  return {
    key, name, group, unit, runs,
    rate: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    bad: runs.reduce((sum, r) => sum + r.bad, 0),
    cpuCores: cpu.length ? median(cpu) : null,
    helperCpuCores: helper.length ? median(helper) : null,
    peakRssMb: rss.length ? Math.max(...rss) : null,
  };
}

/** CPU milliseconds per request (or per operation) of `cores` at `rate`. */
export function cpuMsPer(cores: number | null, rate: number): number | null {
  return cores === null || !(rate > 0) ? null : (cores * 1000) / rate;
}

/** Which ceiling each of our scenarios is compared with. */
const CEILINGS: Record<string, { key: string; divide: number; against: string }> = {
  discovery: { key: 'http-ceiling', divide: 1, against: 'HTTP' },
  jwks: { key: 'http-ceiling', divide: 1, against: 'HTTP' },
  'rest-read': { key: 'db-ceiling', divide: 1, against: 'one-query database' },
  'rest-write': { key: 'db-ceiling', divide: 1, against: 'one-query database' },
  authorize: { key: 'db-ceiling', divide: 1, against: 'one-query database' },
  exchange: { key: 'crypto-sign', divide: 2, against: 'two RS256 signatures' },
  refresh: { key: 'crypto-sign', divide: 2, against: 'two RS256 signatures' },
  'exchange-es256': { key: 'crypto-sign-es256', divide: 2, against: 'two ES256 signatures' },
};

/** ours ÷ in-memory peer, ours ÷ peer as deployed, ours ÷ ceiling, for the rows that have a counterpart. */
export function addRatios(rows: Row[]): void {
  const find = (group: Group, key: string) => rows.find((r) => r.group === group && r.key === key);
  for (const row of rows.filter((r) => r.group === 'ours')) {
    const peer = find('peer', row.key);
    if (peer && peer.rate > 0) row.vsPeer = row.rate / peer.rate;
    const deployed = find('deployed', row.key);
    if (deployed && deployed.rate > 0) row.vsDeployed = row.rate / deployed.rate;
    const c = CEILINGS[row.key];
    const ceiling = c && find('ceiling', c.key);
    if (c && ceiling && ceiling.rate > 0) row.vsCeiling = { ratio: row.rate / (ceiling.rate / c.divide), against: c.against };
  }
}

const fmt = {
  rate: (v: number) => (Number.isFinite(v) ? v.toLocaleString('en-US', { maximumFractionDigits: v >= 100 ? 0 : 1 }) : '–'),
  ms: (v: number) => (Number.isFinite(v) ? v.toFixed(v >= 10 ? 0 : 1) : '–'),
  num: (v: number | null | undefined, digits: number) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits)),
};

function render(header: string[], body: string[][], leftColumns: ReadonlySet<number>, breaks: ReadonlySet<number> = new Set()): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (leftColumns.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  body.forEach((cells, i) => {
    if (breaks.has(i)) out.push('');
    out.push(line(cells));
  });
  return out.join('\n');
}

/** What each row measured: rate, latency, failures, CPU per request (server; database or Redis), peak RSS. */
export function table(rows: readonly Row[]): string {
  const header = ['scenario', 'rate', 'unit', 'p50 ms', 'p99 ms', 'non-2xx', 'CPU cores', 'CPU ms/req', 'db/Redis ms/req', 'peak RSS MB'];
  const body = rows.map((r) => [
    r.name, fmt.rate(r.rate), r.unit, fmt.ms(r.p50), fmt.ms(r.p99), r.group === 'ceiling' && r.unit === 'ops/s' ? '–' : String(r.bad),
    fmt.num(r.cpuCores, 2), fmt.num(cpuMsPer(r.cpuCores, r.rate), 3), fmt.num(cpuMsPer(r.helperCpuCores, r.rate), 3), fmt.num(r.peakRssMb, 0),
  ]);
  const breaks = new Set(rows.map((r, i) => (i > 0 && rows[i - 1]!.group !== r.group ? i : -1)).filter((i) => i > 0));
  return render(header, body, new Set([0, 2]), breaks);
}

/** Our rows with their three ratios. */
export function ratioTable(rows: readonly Row[]): string {
  const ours = rows.filter((r) => r.group === 'ours');
  const header = ['scenario', 'ours÷peer as deployed', 'ours÷in-memory peer', 'ours÷ceiling'];
  const body = ours.map((r) => [
    r.name, fmt.num(r.vsDeployed, 2), fmt.num(r.vsPeer, 2),
    r.vsCeiling === undefined ? '–' : `${r.vsCeiling.ratio.toFixed(2)} (${r.vsCeiling.against})`,
  ]);
  return render(header, body, new Set([0, 3]));
}

export interface Target {
  target: string;
  measured: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

export function targetTable(targets: readonly Target[]): string {
  return render(['target', 'measured', ''], targets.map((t) => [t.target, t.measured, t.met === undefined ? 'not measured' : t.met ? 'met' : 'not met']),
    new Set([0, 2]));
}

/** Start-up: the median of N starts of the compiled server to /ready on an already migrated database. */
export interface StartResult {
  kind: 'embedded' | 'postgres';
  describe: string;
  startsMs: number[];
  medianMs: number;
  /** CPU seconds of the server process until ready (all its threads), median. */
  cpuMs: number | null;
}

/** The targets of the performance work, each beside what this run measured. */
export function evaluateTargets(rows: readonly Row[], bigRows: readonly Row[], starts: readonly StartResult[]): Target[] {
  const ours = (key: string) => rows.find((r) => r.group === 'ours' && r.key === key);
  const group = (g: Group, key: string) => rows.find((r) => r.group === g && r.key === key);
  const out: Target[] = [];
  const ratio = (target: string, row: Row | undefined, pick: (r: Row) => number | undefined, min: number) => {
    const v = row && pick(row);
    out.push({ target, measured: v === undefined ? '–' : `${v.toFixed(2)}`, met: v === undefined ? undefined : v >= min });
  };
  for (const key of ['exchange', 'refresh']) {
    const name = key === 'exchange' ? 'code exchange' : 'refresh grant';
    ratio(`${name} ≥ 1.3× the peer as deployed`, ours(key), (r) => r.vsDeployed, 1.3);
    ratio(`${name} ≥ 0.6 of the two-signature ceiling`, ours(key), (r) => r.vsCeiling?.ratio, 0.6);
  }
  ratio('userinfo ≥ 1.0× the in-memory peer', ours('userinfo'), (r) => r.vsPeer, 1.0);
  ratio('authorize (remembered consent) ≥ 0.4 of the one-query database ceiling', ours('authorize'), (r) => r.vsCeiling?.ratio, 0.4);
  ratio('REST read ≥ 0.7 of the database ceiling', ours('rest-read'), (r) => r.vsCeiling?.ratio, 0.7);
  ratio('REST write ≥ 0.5 of the database ceiling', ours('rest-write'), (r) => r.vsCeiling?.ratio, 0.5);
  ratio('discovery ≥ 2× the in-memory peer', ours('discovery'), (r) => r.vsPeer, 2);
  ratio('JWKS ≥ 2× the in-memory peer', ours('jwks'), (r) => r.vsPeer, 2);
  ratio('code exchange, ES256 client ≥ 2× the peer as deployed', ours('exchange-es256'), (r) => r.vsDeployed, 2);
  {
    const o = ours('exchange');
    const d = group('deployed', 'exchange');
    const mine = o && o.cpuCores !== null && o.helperCpuCores !== null ? cpuMsPer(o.cpuCores + o.helperCpuCores, o.rate) : null;
    const theirs = d && d.cpuCores !== null && d.helperCpuCores !== null ? cpuMsPer(d.cpuCores + d.helperCpuCores, d.rate) : null;
    out.push({
      target: 'CPU per exchange: server + database below the peer\'s server + Redis',
      measured: mine === null || theirs === null ? '–' : `${mine.toFixed(2)} ms vs ${theirs.toFixed(2)} ms`,
      met: mine === null || theirs === null ? undefined : mine < theirs,
    });
  }
  {
    const rss = [...rows, ...bigRows].filter((r) => r.group === 'ours').map((r) => r.peakRssMb).filter((v): v is number => v !== null);
    const peak = rss.length ? Math.max(...rss) : null;
    out.push({ target: 'peak RSS of our server ≤ 200 MB', measured: peak === null ? '–' : `${peak.toFixed(0)} MB`, met: peak === null ? undefined : peak <= 200 });
  }
  for (const [kind, limit, label] of [['embedded', 1500, 'embedded database'], ['postgres', 1000, 'PostgreSQL']] as const) {
    const s = starts.find((x) => x.kind === kind);
    out.push({
      target: `start to /ready on a migrated ${label} ≤ ${(limit / 1000).toFixed(1)} s (median)`,
      measured: s ? `${(s.medianMs / 1000).toFixed(2)} s` : '–', met: s ? s.medianMs <= limit : undefined,
    });
  }
  if (bigRows.length > 0) {
    // Slower by at most 15 % (a faster run on the big database is no failure).
    const worst = Math.min(...bigRows.map((r) => r.vsSmall ?? Infinity));
    out.push({
      target: '--big: no figure more than 15 % below the small database\'s',
      measured: Number.isFinite(worst) ? `least ${growth(worst)}` : '–', met: Number.isFinite(worst) ? worst >= 0.85 : undefined,
    });
  }
  return out;
}

/** A ratio big ÷ small as a signed percentage. */
function growth(ratio: number): string {
  const pct = (ratio - 1) * 100;
  return `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(0)} %`;
}

/** The `--big` rerun beside the small-database figures. */
export function bigTable(bigRows: readonly Row[], rows: readonly Row[]): string {
  const header = ['scenario', 'small db', 'big db', 'unit', 'growth', 'p99 small', 'p99 big', 'db ms/req small', 'db ms/req big'];
  const body = bigRows.map((b) => {
    const small = rows.find((r) => r.group === 'ours' && r.key === b.key);
    return [
      b.name, small ? fmt.rate(small.rate) : '–', fmt.rate(b.rate), b.unit,
      b.vsSmall === undefined ? '–' : growth(b.vsSmall),
      small ? fmt.ms(small.p99) : '–', fmt.ms(b.p99),
      small ? fmt.num(cpuMsPer(small.helperCpuCores, small.rate), 3) : '–', fmt.num(cpuMsPer(b.helperCpuCores, b.rate), 3),
    ];
  });
  return render(header, body, new Set([0, 3]));
}

export function startTable(starts: readonly StartResult[]): string {
  return render(['start (compiled server, migrated database)', 'starts', 'median to /ready', 'each (ms)', 'CPU ms (median)'],
    starts.map((s) => [s.describe, String(s.startsMs.length), `${(s.medianMs / 1000).toFixed(2)} s`, s.startsMs.map((m) => m.toFixed(0)).join(', '), fmt.num(s.cpuMs, 0)]),
    new Set([0, 3]));
}
