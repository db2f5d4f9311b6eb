-- Per-key request budgets shared by every instance on one PostgreSQL (rate-limiter-flexible's
-- PostgreSQL store, with this exact layout: key, points used, expiry in epoch milliseconds). Unused on
-- PGlite, which has one process; harmless there.
create table rate_limits (
  key    varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
