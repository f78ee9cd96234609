-- Whether a user gets an email about every new thread in a region's or
-- working group's forum. Both PUT /api/regions/{regionId}/forum/subscriptions
-- and PATCH /api/notifications/regions (notifyByEmailAboutNewThreads) set it.
-- A row means "following"; no row means not following.

create table forum_subscriptions (
  user_id integer not null references users (id) on delete cascade,
  region_id integer not null references regions (id) on delete cascade,
  subscribed_at timestamptz not null,
  primary key (user_id, region_id)
);
create index forum_subscriptions_region_idx on forum_subscriptions (region_id);
