-- A region's pin on the community map; status 0 inactive, 1 active (SPEC-API).

create table region_pins (
  region_id integer primary key references regions (id) on delete cascade,
  lat double precision not null check (lat between -90 and 90),
  lon double precision not null check (lon between -180 and 180),
  description text not null,
  status smallint not null check (status in (0, 1)),
  updated_at timestamptz not null
);
