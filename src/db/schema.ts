/**
 * The database as Kysely sees it: the union of every area's tables. Each area
 * declares its own tables beside its code and adds them here.
 */
import type { AccountsTables } from '../accounts/accounts.tables.ts';

export interface Database extends AccountsTables {}
