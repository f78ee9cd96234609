import type { ColumnType } from 'kysely';

export interface FeatureTogglesTable {
  identifier: string;
  is_active: boolean;
  updated_at: ColumnType<Date, Date | undefined, Date>;
  updated_by: number | null;
}

export interface FeatureTogglesTables {
  feature_toggles: FeatureTogglesTable;
}
