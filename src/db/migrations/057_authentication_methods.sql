-- How a session was signed in (RFC 8176 authentication method references:
-- `pwd`, `otp`, `hwk`, `swk`, `user`, `mfa`), carried from the session to the
-- codes issued under it and the grants they become, so that ID tokens state
-- `amr` and `acr` (docs/oauth.md, "Authentication methods and levels").
-- Everything signed in before this column existed was signed in with a password.
alter table sessions add column amr text[] not null default '{pwd}';
alter table oauth_codes add column amr text[] not null default '{pwd}';
alter table oauth_grants add column amr text[] not null default '{pwd}';
