-- Disabling and deleting members (docs/security.md, "Disabling and deleting
-- a member"). A disabled member cannot sign in; enabling clears the mark. A
-- deleted member's row stays as an anonymous stand-in, so that what they
-- wrote for the community (store wall posts, polls) keeps an author without
-- naming anyone; everything that was theirs alone is deleted with it.
alter table users
  add column disabled_at timestamptz,
  add column deleted_at timestamptz,
  add constraint users_deleted_is_disabled check (deleted_at is null or disabled_at is not null);
