-- A write naming a member at the moment the member is deleted (docs/security.md,
-- "Deleting a member"): the deletion holds the member's row (`for no key update`)
-- while it deletes what was theirs, table by table. A basket, a pickup sign-up,
-- a subscription or a manager's place inserted meanwhile, committed after the
-- deletion's delete of its table, outlived the account: the foreign key's
-- key-share lock does not wait for that lock. Each insert of such a row (and each
-- change of whose it is) now holds the member's row `for share`, which waits for
-- a deletion under way and then finds the member deleted: the statement fails
-- with SQLSTATE FS409 and nothing is written (the request answers 409). A
-- deletion that begins after it waits for its transaction, then deletes the row.
-- The tables the member's own sessions write only while they hold that session
-- (OAuth codes and grants, passkeys, one-time codes), which the deletion ends
-- first, need none of this.
create function refuse_deleted_member(member integer) returns void language plpgsql as $$
begin
  if member is null then return; end if;
  perform 1 from users where id = member and deleted_at is null for share;
  if not found then
    raise exception 'member % was deleted', member using errcode = 'FS409';
  end if;
end $$;

create function refuse_deleted_user_id() returns trigger language plpgsql as $$
begin perform refuse_deleted_member(new.user_id); return new; end $$;
create function refuse_deleted_creator_id() returns trigger language plpgsql as $$
begin perform refuse_deleted_member(new.creator_id); return new; end $$;
create function refuse_deleted_foodsaver_id() returns trigger language plpgsql as $$
begin perform refuse_deleted_member(new.foodsaver_id); return new; end $$;
create function refuse_deleted_reported_id() returns trigger language plpgsql as $$
begin perform refuse_deleted_member(new.reported_id); return new; end $$;

create trigger baskets_member_live before insert or update of creator_id on baskets
  for each row execute function refuse_deleted_creator_id();
create trigger quiz_sessions_member_live before insert or update of foodsaver_id on quiz_sessions
  for each row execute function refuse_deleted_foodsaver_id();
create trigger reports_member_live before insert or update of reported_id on reports
  for each row execute function refuse_deleted_reported_id();
create trigger basket_requests_member_live before insert or update of user_id on basket_requests
  for each row execute function refuse_deleted_user_id();
create trigger forum_subscriptions_member_live before insert or update of user_id on forum_subscriptions
  for each row execute function refuse_deleted_user_id();
create trigger store_team_member_live before insert or update of user_id on store_team
  for each row execute function refuse_deleted_user_id();
create trigger store_pickup_signups_member_live before insert or update of user_id on store_pickup_signups
  for each row execute function refuse_deleted_user_id();
create trigger uploads_member_live before insert or update of user_id on uploads
  for each row execute function refuse_deleted_user_id();
create trigger region_memberships_member_live before insert or update of user_id on region_memberships
  for each row execute function refuse_deleted_user_id();
create trigger region_ambassadors_member_live before insert or update of user_id on region_ambassadors
  for each row execute function refuse_deleted_user_id();
