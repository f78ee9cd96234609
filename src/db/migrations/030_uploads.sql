-- Uploaded files (SPEC-API POST /api/uploads): kept in the database so that
-- every instance serves every upload. Images are stored re-encoded, without
-- metadata; other files byte for byte.
create table uploads (
  uuid uuid primary key,
  user_id integer references users (id) on delete set null,
  filename text not null check (length(filename) between 1 and 255),
  mime_type text not null check (length(mime_type) between 1 and 255),
  filesize integer not null check (filesize >= 0),
  content bytea not null,
  created_at timestamptz not null default now()
);
create index uploads_user_idx on uploads (user_id);
