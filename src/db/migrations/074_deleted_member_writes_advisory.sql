-- Migration 073's guard against a write naming a member at the moment the
-- member is deleted (docs/security.md, "Deleting a member"), at a lower cost.
-- The deletion deletes what was theirs table by table; a basket, a pickup
-- sign-up or a manager's place inserted meanwhile, committed after the
-- deletion's delete of its table, outlived the account.
--
-- Each statement inserting such rows (and each change of whose a row is) now
-- holds a lock of each member they name shared, the deletion the same lock
-- alone: an advisory lock, keyed by the schema and the member. An insert during a deletion waits for it, then
-- finds the member deleted: the statement fails with SQLSTATE FS409 and nothing
-- is written (the request answers 409). A deletion that begins after the insert
-- waits for its transaction, then deletes the row. Not 073's row lock of `users`
-- (`for share`):
-- a shared row lock taken by many writers at once is a MultiXact, which cost
-- the REST write a third of its rate (a lock per row inserted still cost it a
-- sixth: hence one trigger call per statement); and the deletion cannot take the row
-- `for update`, which also waits for the key-share locks of the member's own
-- sessions' statements (a deadlock, docs/security.md "Lock order").
--
-- The tables the member's own sessions write only while they hold that session
-- (OAuth codes and grants, passkeys, one-time codes), which the deletion ends
-- first, need none of this. Nor do forum subscriptions, the REST write's hot
-- path, which names no one to anyone: one left behind goes with the scheduled
-- purge (forum.repository.ts), found through this index.
create index if not exists users_deleted_idx on users (id) where deleted_at is not null;
-- Migration 073's row triggers (a row lock `for share` on `users` per inserted row) give way. Written to run
-- also on a database that ran this design as an early 073 (for a few minutes of 2026-11-29 on main).
drop trigger if exists baskets_member_live on baskets;
drop trigger if exists quiz_sessions_member_live on quiz_sessions;
drop trigger if exists reports_member_live on reports;
drop trigger if exists basket_requests_member_live on basket_requests;
drop trigger if exists forum_subscriptions_member_live on forum_subscriptions;
drop trigger if exists store_team_member_live on store_team;
drop trigger if exists store_pickup_signups_member_live on store_pickup_signups;
drop trigger if exists uploads_member_live on uploads;
drop trigger if exists region_memberships_member_live on region_memberships;
drop trigger if exists region_ambassadors_member_live on region_ambassadors;
drop function if exists refuse_deleted_user_id();
drop function if exists refuse_deleted_creator_id();
drop function if exists refuse_deleted_foodsaver_id();
drop function if exists refuse_deleted_reported_id();
drop function if exists refuse_deleted_member(integer);

create or replace function hold_member_for_deletion(member integer) returns void language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtext(current_schema() || ':member-deletion'), member);
end $$;

-- A volatile function: the select after the lock sees what a deletion it waited for committed.
create or replace function refuse_deleted_member(member integer) returns void language plpgsql as $$
begin
  if member is null then return; end if;
  perform pg_advisory_xact_lock_shared(hashtext(current_schema() || ':member-deletion'), member);
  if not exists (select 1 from users where id = member and deleted_at is null) then
    raise exception 'member % was deleted', member using errcode = 'FS409';
  end if;
end $$;

-- After each inserting statement, once per member its rows name (in one order: no two statements wait in a circle).
create or replace function inserted_user_ids_live() returns trigger language plpgsql as $$
declare member integer;
begin
  for member in select distinct user_id from new_rows order by 1 loop perform refuse_deleted_member(member); end loop;
  return null;
end $$;
create or replace function inserted_creator_ids_live() returns trigger language plpgsql as $$
declare member integer;
begin
  for member in select distinct creator_id from new_rows order by 1 loop perform refuse_deleted_member(member); end loop;
  return null;
end $$;
create or replace function inserted_foodsaver_ids_live() returns trigger language plpgsql as $$
declare member integer;
begin
  for member in select distinct foodsaver_id from new_rows order by 1 loop perform refuse_deleted_member(member); end loop;
  return null;
end $$;
create or replace function inserted_reported_ids_live() returns trigger language plpgsql as $$
declare member integer;
begin
  for member in select distinct reported_id from new_rows order by 1 loop perform refuse_deleted_member(member); end loop;
  return null;
end $$;

-- A row changed to name another member (nothing does so today): row by row, the column named by the trigger.
create or replace function updated_member_live() returns trigger language plpgsql as $$
begin
  perform refuse_deleted_member((to_jsonb(new) ->> tg_argv[0])::integer);
  return new;
end $$;

drop trigger if exists baskets_inserted_member_live on baskets;
create trigger baskets_inserted_member_live after insert on baskets referencing new table as new_rows
  for each statement execute function inserted_creator_ids_live();
drop trigger if exists baskets_updated_member_live on baskets;
create trigger baskets_updated_member_live before update of creator_id on baskets
  for each row execute function updated_member_live('creator_id');
drop trigger if exists quiz_sessions_inserted_member_live on quiz_sessions;
create trigger quiz_sessions_inserted_member_live after insert on quiz_sessions referencing new table as new_rows
  for each statement execute function inserted_foodsaver_ids_live();
drop trigger if exists quiz_sessions_updated_member_live on quiz_sessions;
create trigger quiz_sessions_updated_member_live before update of foodsaver_id on quiz_sessions
  for each row execute function updated_member_live('foodsaver_id');
drop trigger if exists reports_inserted_member_live on reports;
create trigger reports_inserted_member_live after insert on reports referencing new table as new_rows
  for each statement execute function inserted_reported_ids_live();
drop trigger if exists reports_updated_member_live on reports;
create trigger reports_updated_member_live before update of reported_id on reports
  for each row execute function updated_member_live('reported_id');
drop trigger if exists basket_requests_inserted_member_live on basket_requests;
create trigger basket_requests_inserted_member_live after insert on basket_requests referencing new table as new_rows
  for each statement execute function inserted_user_ids_live();
drop trigger if exists basket_requests_updated_member_live on basket_requests;
create trigger basket_requests_updated_member_live before update of user_id on basket_requests
  for each row execute function updated_member_live('user_id');
drop trigger if exists store_team_inserted_member_live on store_team;
create trigger store_team_inserted_member_live after insert on store_team referencing new table as new_rows
  for each statement execute function inserted_user_ids_live();
drop trigger if exists store_team_updated_member_live on store_team;
create trigger store_team_updated_member_live before update of user_id on store_team
  for each row execute function updated_member_live('user_id');
drop trigger if exists store_pickup_signups_inserted_member_live on store_pickup_signups;
create trigger store_pickup_signups_inserted_member_live after insert on store_pickup_signups referencing new table as new_rows
  for each statement execute function inserted_user_ids_live();
drop trigger if exists store_pickup_signups_updated_member_live on store_pickup_signups;
create trigger store_pickup_signups_updated_member_live before update of user_id on store_pickup_signups
  for each row execute function updated_member_live('user_id');
drop trigger if exists uploads_inserted_member_live on uploads;
create trigger uploads_inserted_member_live after insert on uploads referencing new table as new_rows
  for each statement execute function inserted_user_ids_live();
drop trigger if exists uploads_updated_member_live on uploads;
create trigger uploads_updated_member_live before update of user_id on uploads
  for each row execute function updated_member_live('user_id');
drop trigger if exists region_memberships_inserted_member_live on region_memberships;
create trigger region_memberships_inserted_member_live after insert on region_memberships referencing new table as new_rows
  for each statement execute function inserted_user_ids_live();
drop trigger if exists region_memberships_updated_member_live on region_memberships;
create trigger region_memberships_updated_member_live before update of user_id on region_memberships
  for each row execute function updated_member_live('user_id');
drop trigger if exists region_ambassadors_inserted_member_live on region_ambassadors;
create trigger region_ambassadors_inserted_member_live after insert on region_ambassadors referencing new table as new_rows
  for each statement execute function inserted_user_ids_live();
drop trigger if exists region_ambassadors_updated_member_live on region_ambassadors;
create trigger region_ambassadors_updated_member_live before update of user_id on region_ambassadors
  for each row execute function updated_member_live('user_id');
