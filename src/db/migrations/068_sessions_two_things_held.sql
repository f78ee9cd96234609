-- Two things held are one factor (docs/security.md, "What counts as two
-- factors"): a code proved beside a passkey that verified nobody gave a session
-- `mfa` before this rule. Such sessions keep their methods without it, so the
-- roles that must sign in with a second factor ask for it again.
update sessions set amr = array_remove(amr, 'mfa')
where 'mfa' = any(amr) and not ('pwd' = any(amr)) and not ('user' = any(amr));
