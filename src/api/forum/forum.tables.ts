/** A row: the user gets an email about every new thread in the region's forum. */
export interface ForumSubscriptionsTable {
  user_id: number;
  region_id: number;
  subscribed_at: Date;
}

export interface ForumTables {
  forum_subscriptions: ForumSubscriptionsTable;
}
