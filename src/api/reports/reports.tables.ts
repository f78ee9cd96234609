import type { ColumnType, Generated } from 'kysely';

export interface ReportsTable {
  id: Generated<number>;
  reporter_id: number | null;
  reported_id: number;
  reason: string;
  message: Generated<string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface ReportsTables {
  reports: ReportsTable;
}
