-- Instances learn of a change to the signing keys at once:
-- every statement that changes `oauth_signing_keys` — `keys rotate`, the purge
-- of expired keys, an operator's own SQL (deleting a compromised key) — sends
-- a notification on the channel `oauth_signing_keys` when its transaction
-- commits. Each PostgreSQL instance listens on one dedicated connection
-- (src/db/notifications.ts) and reloads its keys (src/oauth/keys/key-store.ts).
-- The payload names the table's schema: the channel is shared by every schema
-- of the database, and an instance acts only on its own.
create function oauth_signing_keys_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('oauth_signing_keys', tg_table_schema);
  return null;
end $$;

create trigger oauth_signing_keys_notify after insert or update or delete or truncate on oauth_signing_keys
  for each statement execute function oauth_signing_keys_notify();
