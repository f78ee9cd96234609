import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export type StoreTeamRole = 'member' | 'standby' | 'manager';
export type StoreLogAction = 'wall-post-deleted' | 'pickup-signed-up' | 'manager-appointed';

export interface StoresTable {
  id: Generated<number>;
  name: string;
  region_id: number;
  address: Generated<string>;
  created_at: CreatedAt;
}

export interface StoreTeamTable {
  store_id: number;
  user_id: number;
  role: StoreTeamRole;
  joined_at: CreatedAt;
}

export interface StoreWallPostsTable {
  id: Generated<number>;
  store_id: number;
  author_id: number;
  text: string;
  created_at: CreatedAt;
}

export interface StorePickupSlotsTable {
  id: Generated<number>;
  store_id: number;
  pickup_at: Date;
  capacity: number;
}

export interface StorePickupSignupsTable {
  slot_id: number;
  user_id: number;
  is_confirmed: boolean;
  signed_up_at: CreatedAt;
}

export interface StoreLogTable {
  id: Generated<number>;
  store_id: number;
  action: StoreLogAction;
  acting_user_id: number | null;
  affected_user_id: number | null;
  date_reference: Date | null;
  content: string | null;
  created_at: Date;
}

export interface StoresTables {
  stores: StoresTable;
  store_team: StoreTeamTable;
  store_wall_posts: StoreWallPostsTable;
  store_pickup_slots: StorePickupSlotsTable;
  store_pickup_signups: StorePickupSignupsTable;
  store_log: StoreLogTable;
}
