import type { ColumnType, Generated } from 'kysely';

/** jsonb columns: written as JSON text, read back parsed. */
type Json<T> = ColumnType<T, string, string>;

export interface BasketsTable {
  id: Generated<number>;
  creator_id: number;
  description: string;
  pictures: Json<string[]>;
  contact_types: Json<number[]>;
  mobile: string | null;
  telephone: string | null;
  lat: number;
  lon: number;
  life_time_in_days: number;
  weight_in_grams: number;
  status: Generated<number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
  until: Date;
}

export interface BasketRequestsTable {
  basket_id: number;
  user_id: number;
  status: Generated<number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface BasketsTables {
  baskets: BasketsTable;
  basket_requests: BasketRequestsTable;
}
