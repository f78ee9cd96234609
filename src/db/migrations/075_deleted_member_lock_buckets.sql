-- Migration 074's lock of a member against their deletion, taken by an insert for
-- each member it names, ran out of the lock table for an insert naming many
-- members at once (`npm run bench -- --big` seeds 100,000 region memberships in
-- one statement: "out of shared memory"; PostgreSQL keeps about 64 locks a
-- connection). The lock is now one of 256 buckets (the member's id modulo 256):
-- a statement takes at most 256, in order, then checks every member it names at
-- once; a deletion takes its member's bucket alone, and holds up, for its few
-- milliseconds, the inserts naming a member of that bucket.
create or replace function hold_member_for_deletion(member integer) returns void language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtext(current_schema() || ':member-deletion'), member % 256);
end $$;

-- A volatile function: the select after the locks sees what a deletion it waited for committed.
create or replace function refuse_deleted_members(members integer[]) returns void language plpgsql as $$
declare bucket integer;
begin
  for bucket in select distinct m % 256 from unnest(members) m where m is not null order by 1 loop
    perform pg_advisory_xact_lock_shared(hashtext(current_schema() || ':member-deletion'), bucket);
  end loop;
  if exists (select 1 from users where id = any(members) and deleted_at is not null) then
    raise exception 'a member this statement names was deleted' using errcode = 'FS409';
  end if;
end $$;

create or replace function refuse_deleted_member(member integer) returns void language plpgsql as $$
begin
  perform refuse_deleted_members(array[member]);
end $$;

create or replace function inserted_user_ids_live() returns trigger language plpgsql as $$
begin
  perform refuse_deleted_members(array(select user_id from new_rows));
  return null;
end $$;
create or replace function inserted_creator_ids_live() returns trigger language plpgsql as $$
begin
  perform refuse_deleted_members(array(select creator_id from new_rows));
  return null;
end $$;
create or replace function inserted_foodsaver_ids_live() returns trigger language plpgsql as $$
begin
  perform refuse_deleted_members(array(select foodsaver_id from new_rows));
  return null;
end $$;
create or replace function inserted_reported_ids_live() returns trigger language plpgsql as $$
begin
  perform refuse_deleted_members(array(select reported_id from new_rows));
  return null;
end $$;
