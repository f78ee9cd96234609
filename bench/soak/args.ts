/** Command-line flags of `npm run soak`. */
import { flags, UsageError } from '../args.ts';

export interface SoakOptions {
  /** Seconds of load in all; each kill ends an equal share of it. */
  duration: number;
  /** How many times the server is killed (SIGKILL) mid-load and restarted. */
  kills: number;
  /** Concurrent writers of each kind. */
  writers: number;
  /** A PostgreSQL server on which a fresh database is created (default: DATABASE_URL, else 127.0.0.1:5432). */
  databaseUrl: string | undefined;
}

export const SOAK_USAGE = `usage: npm run soak -- [options]
  --duration S        seconds of concurrent writes in all (default 60)
  --kills N           SIGKILL the server mid-load N times, restarting it each time (default 2)
  --writers N         concurrent writers of each kind (default 3)
  --database-url URL  a PostgreSQL server to create the soak's fresh database on
                      (default: DATABASE_URL, else postgres://postgres@127.0.0.1:5432)`;

export function parseSoakArgs(argv: readonly string[]): SoakOptions | 'help' {
  const options: SoakOptions = { duration: 60, kills: 2, writers: 3, databaseUrl: process.env.DATABASE_URL };
  for (const { arg, name, value, positive } of flags(argv)) {
    switch (name) {
      case '--help': case '-h': return 'help';
      case '--duration': options.duration = positive(2); break;
      case '--kills': options.kills = Math.round(positive(1)); break;
      case '--writers': options.writers = Math.round(positive(1)); break;
      case '--database-url': options.databaseUrl = value(); break;
      default: throw new UsageError(`unknown option ${arg}`);
    }
  }
  return options;
}
