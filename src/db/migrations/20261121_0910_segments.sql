-- Segments: a named, typed rule tree over an account's subscribers. The filter is stored as
-- given after validation and compiled to parameterised SQL on every read (segmentFilter.ts), so counts
-- and members are always current; nothing is materialised.
create table segments (
  id         uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  name       text not null,
  filter     jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index segments_account_name on segments (account_id, lower(name));
create index segments_account_created on segments (account_id, created_at desc, id desc);
