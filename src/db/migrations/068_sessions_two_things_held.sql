-- Two things held are one factor (docs/security.md, "What counts as two
-- factors"): a code proved beside a passkey that verified nobody gave a session
-- `mfa` before this rule. Such sessions keep their methods without it, so the
-- roles that must sign in with a second factor ask for it again; the grants,
-- codes and device codes issued from them lose it too, and the `acr` value
-- they met (the ID token's `acr` is then the level their methods reach).
update sessions set amr = array_remove(amr, 'mfa')
where 'mfa' = any(amr) and not ('pwd' = any(amr)) and not ('user' = any(amr));
update oauth_grants set amr = array_remove(amr, 'mfa'), acr = case when acr = 'urn:foodsharing:acr:mfa' then null else acr end
where 'mfa' = any(amr) and not ('pwd' = any(amr)) and not ('user' = any(amr));
update oauth_codes set amr = array_remove(amr, 'mfa'), acr = case when acr = 'urn:foodsharing:acr:mfa' then null else acr end
where 'mfa' = any(amr) and not ('pwd' = any(amr)) and not ('user' = any(amr));
update oauth_device_codes set amr = array_remove(amr, 'mfa')
where 'mfa' = any(amr) and not ('pwd' = any(amr)) and not ('user' = any(amr));
