/** The soak's summary on stdout: counts per kind, each restart's findings, `lost: N`; returns the exit status. */
import type { SoakOptions } from './args.ts';
import { KINDS, type Ledger } from './ledger.ts';
import type { Verdict } from './verify.ts';

export interface CycleResult {
  cycle: number;
  diedByItself: boolean;
  restartMs: number;
  halfDone: Array<{ what: string; n: number }>;
  verdict: Verdict;
}

export interface SoakRun {
  options: SoakOptions;
  database: string;
  server: string;
  ledger: Ledger;
  cycles: CycleResult[];
}

function pad(s: string | number, n: number): string {
  return String(s).padStart(n);
}

export function report(out: NodeJS.WritableStream, run: SoakRun): number {
  const { ledger, cycles, options } = run;
  const lostByKind = (kind: (typeof KINDS)[number]) => cycles.reduce((n, c) => n + (c.verdict.lost[kind]?.length ?? 0), 0);
  const lost = KINDS.reduce((n, k) => n + lostByKind(k), 0);
  const halfDone = cycles.flatMap((c) => c.halfDone.map((h) => `after kill ${c.cycle}: ${h.n} ${h.what}`));
  const stuck = cycles.flatMap((c) => c.verdict.stuck.map((s) => `after kill ${c.cycle}: ${s}`));
  const faults = ledger.faults();
  const lines = [
    `npm run soak — ${new Date().toISOString()}`,
    `database: ${run.database}`,
    `server: ${run.server}; SIGKILL mid-load ${options.kills} time(s), restarted each time on the same database`,
    `load: ${options.duration} s in all, ${options.writers} writer(s) of each kind (refresh chains ${2 * options.writers})`,
    '',
    `${'kind'.padEnd(14)} ${pad('acknowledged', 12)} ${pad('lost', 5)} ${pad('unanswered', 10)}  refused (status × n)`,
    ...KINDS.map((k) => {
      const t = ledger.tallies[k];
      const refused = Object.entries(t.refused).map(([s, n]) => `${s} × ${n}`).join(', ') || '-';
      return `${k.padEnd(14)} ${pad(t.acked, 12)} ${pad(lostByKind(k), 5)} ${pad(t.unanswered, 10)}  ${refused}`;
    }),
    '',
    ...cycles.map((c) => `kill ${c.cycle}: ${c.diedByItself ? 'the server had DIED BY ITSELF before the kill' : 'SIGKILL'}, ready again after ${(c.restartMs / 1000).toFixed(1)} s; `
      + `half-done states ${c.halfDone.reduce((n, h) => n + h.n, 0)}; refresh chains whose unanswered refresh had rotated: `
      + `${c.verdict.retriedInGrace} answered with that successor (retry inside the grace period), ${c.verdict.endedOutsideGrace} revoked (retry after it, RFC 9700 §4.14.2)`),
    `refresh chains: ${ledger.chains.length} started, ${ledger.chains.filter((c) => c.ended === undefined).length} still going from their last acknowledged token after the last restart`,
    ...cycles.flatMap((c) => KINDS.flatMap((k) => (c.verdict.lost[k] ?? []).slice(0, 5).map((what) => `LOST after kill ${c.cycle} (${k}): ${what}`))),
    ...halfDone.map((h) => `HALF DONE ${h}`),
    ...stuck.map((s) => `STUCK ${s}`),
    ...ledger.brokenChains.map((b) => `BROKEN during the load: ${b}`),
    ...faults.map((f) => `SERVER FAULT ${f}`),
    ...cycles.filter((c) => c.diedByItself).map((c) => `CRASH: the server died by itself before kill ${c.cycle}`),
    `lost: ${lost}`,
  ];
  out.write(`\n${lines.join('\n')}\n`);
  const failed = lost > 0 || halfDone.length > 0 || stuck.length > 0 || ledger.brokenChains.length > 0 || faults.length > 0 || cycles.some((c) => c.diedByItself);
  return failed ? 1 : 0;
}
