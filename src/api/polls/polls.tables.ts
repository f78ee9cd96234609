import type { ColumnType, Generated } from 'kysely';

export interface PollsTable {
  id: Generated<number>;
  region_id: number;
  author_id: number;
  name: string;
  description: string;
  scope: number;
  type: number;
  start_date: Date;
  end_date: Date;
  creation_date: ColumnType<Date, Date | undefined, never>;
  shuffle_options: Generated<boolean>;
  eligible_votes_count: Generated<number>;
  votes: Generated<number>;
}

export interface PollOptionsTable {
  poll_id: number;
  position: number;
  text: string;
  /** Votes per value, as JSON text on write. */
  counts: ColumnType<Record<string, number>, string, string>;
}

export interface PollsTables {
  polls: PollsTable;
  poll_options: PollOptionsTable;
}
