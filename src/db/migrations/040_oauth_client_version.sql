-- A client's version: raised by every change of the client or of its required
-- regions, whatever makes it (admin screen, CLI, cascades). An instance may keep
-- a client in memory; each statement that acts on its authority checks that the
-- version it read is still current (docs/performance.md, "Clients in memory").

alter table oauth_clients add column version integer not null default 1;

create function oauth_clients_bump_version() returns trigger language plpgsql as $$
begin
  new.version := old.version + 1;
  return new;
end $$;

create trigger oauth_clients_version before update on oauth_clients
  for each row execute function oauth_clients_bump_version();

create function oauth_client_regions_bump_version() returns trigger language plpgsql as $$
begin
  update oauth_clients set version = version + 1
  where id = case when tg_op = 'DELETE' then old.client_id else new.client_id end;
  return null;
end $$;

create trigger oauth_client_regions_version after insert or update or delete on oauth_client_regions
  for each row execute function oauth_client_regions_bump_version();
