import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** What a repository function takes first: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;
