/** Command-line flags of `npm run bench`. */

export const SCENARIO_KEYS = ['exchange', 'refresh', 'exchange-es256', 'userinfo', 'authorize', 'discovery', 'jwks', 'rest-read', 'rest-write', 'start'] as const;
export type ScenarioKey = typeof SCENARIO_KEYS[number];

export interface Options {
  duration: number;
  runs: number;
  connections: number;
  only: ReadonlySet<ScenarioKey>;
  peer: boolean;
  ceilings: boolean;
  big: boolean;
  /** Refresh tokens, grants and sessions --big seeds (a tenth as many members). */
  bigRows: number;
  /** Starts of the `start` scenario per database. */
  starts: number;
  redisUrl: string;
  pglite: boolean;
  json: string | undefined;
  /** Where our server writes a V8 CPU profile (`node --cpu-prof`) when it stops, or undefined. */
  cpuProf: string | undefined;
}

export const USAGE = `usage: npm run bench -- [options]
  --duration S       seconds per scenario run (default 10)
  --runs N           runs per scenario; the table shows medians (default 2)
  --connections N    concurrent connections of the load generator (default 32)
  --only a,b         scenarios: ${SCENARIO_KEYS.join(',')}
  --no-peer          skip oidc-provider (in memory, and as deployed on Redis)
  --redis-url URL    Redis of the peer as deployed (default REDIS_URL, else
                     redis://127.0.0.1:6379); keys under a prefix of the run,
                     deleted after; not answering: that peer is skipped
  --no-ceilings      skip the HTTP, database and crypto ceilings
  --starts N         starts of the compiled server per database (default 5)
  --big              afterwards start a second server on a second database
                     seeded with 1,000,000 refresh tokens, grants and sessions
                     and 100,000 members, and run exchange, refresh, userinfo
                     and REST read on the two in turn (PostgreSQL only)
  --big-rows N       rows --big seeds per table (default 1000000; members: N/10)
  --pglite           use the embedded PGlite even when PostgreSQL answers
  --json FILE        also write the results as JSON
  --cpu-prof DIR     run our server under node --cpu-prof; its profile of the
                     whole run is written to DIR when the bench stops it`;

export class UsageError extends Error {}

export interface Flag {
  arg: string;
  /** `--name` of `--name value` or `--name=value`. */
  name: string;
  /** The flag's value (the next argument unless given with `=`). */
  value(): string;
  /** The value as a number of at least `min`. */
  positive(min: number): number;
}

/** The flags of a command line, one at a time; a value is read only when asked for. */
export function* flags(argv: readonly string[]): Generator<Flag> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${name} needs a value`);
      return v;
    };
    const positive = (min: number): number => {
      const n = Number(value());
      if (!Number.isFinite(n) || n < min) throw new UsageError(`${name} must be a number ≥ ${min}`);
      return n;
    };
    yield { arg, name, value, positive };
  }
}

export function parseArgs(argv: readonly string[]): Options | 'help' {
  const options: Options = {
    duration: 10, runs: 2, connections: 32, only: new Set(SCENARIO_KEYS),
    peer: true, ceilings: true, big: false, bigRows: 1_000_000, starts: 5,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', pglite: false, json: undefined, cpuProf: undefined,
  };
  for (const { arg, name, value, positive } of flags(argv)) {
    switch (name) {
      case '--help': case '-h': return 'help';
      case '--duration': options.duration = positive(0.5); break;
      case '--runs': options.runs = Math.round(positive(1)); break;
      case '--connections': options.connections = Math.round(positive(1)); break;
      case '--only': {
        const keys = value().split(',').map((k) => k.trim()).filter((k) => k !== '');
        const unknown = keys.filter((k) => !(SCENARIO_KEYS as readonly string[]).includes(k));
        if (unknown.length > 0) throw new UsageError(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIO_KEYS.join(', ')}`);
        options.only = new Set(keys as ScenarioKey[]);
        break;
      }
      case '--no-peer': options.peer = false; break;
      case '--no-ceilings': options.ceilings = false; break;
      case '--big': options.big = true; break;
      case '--big-rows': options.bigRows = Math.round(positive(10)); break;
      case '--starts': options.starts = Math.round(positive(1)); break;
      case '--redis-url': options.redisUrl = value(); break;
      case '--pglite': options.pglite = true; break;
      case '--json': options.json = value(); break;
      case '--cpu-prof': options.cpuProf = value(); break;
      default: throw new UsageError(`unknown option ${arg}`);
    }
  }
  return options;
}
