-- A member revoking an app deletes the codes issued to it and not yet
-- exchanged, before revoking its grants (consents.repository.ts): found by
-- user and client.
create index oauth_codes_user_client_idx on oauth_codes (user_id, client_id);
