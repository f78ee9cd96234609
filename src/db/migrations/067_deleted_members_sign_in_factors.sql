-- What deleting a member left behind before a deletion took their ways of
-- signing in too (docs/security.md, "Deleting a member"): the users row stays,
-- anonymised, so no cascade of users (id) removed them. Members deleted
-- earlier lose now what a deletion deletes today.
delete from passkeys where user_id in (select id from users where deleted_at is not null);
delete from webauthn_user_handles where user_id in (select id from users where deleted_at is not null);
delete from webauthn_challenges where user_id in (select id from users where deleted_at is not null);
delete from one_time_code_secrets where user_id in (select id from users where deleted_at is not null);
delete from recovery_codes where user_id in (select id from users where deleted_at is not null);
delete from pending_logins where user_id in (select id from users where deleted_at is not null);
delete from oauth_device_codes where user_id in (select id from users where deleted_at is not null);
