-- How fast a device polls for its device code (RFC 8628 §3.5), kept with the code: every
-- instance paces a device alike, as instances keep no state of their own (SPEC §3). Until the
-- first poll both are null (the interval is then the one the device was told, 5 seconds).
alter table oauth_device_codes add column last_polled_at timestamptz;
alter table oauth_device_codes add column poll_interval_seconds integer;
