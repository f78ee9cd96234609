-- The audit log filtered by who acted (the organisation member of an admin action, `actorId` in the
-- event's details): an index of the events that name one, as the member and client filters have.
create index security_events_actor on security_events ((details ->> 'actorId'), occurred_at) where details ? 'actorId';
