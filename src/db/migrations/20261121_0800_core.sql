-- Core tenancy and subscribers: accounts, users, API keys, custom fields, subscribers, groups, notes,
-- the event log (transactional outbox) and suppressions.
create extension if not exists citext with schema public;
create extension if not exists pg_trgm with schema public;

create table accounts (
  id                 uuid primary key default gen_random_uuid(),
  name               text not null,
  subscriber_limit   int not null,
  default_from_name  text,
  default_from_email text,
  default_reply_to   text,
  tracking_enabled   boolean not null default true,
  verify_emails      boolean not null default false,
  timezone           text not null default 'UTC',
  -- secret part of the bounce-hook URL (/hooks/bounces/{provider}/{bounce_secret})
  bounce_secret      text not null default md5(gen_random_uuid()::text),
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now()
);

create table users (
  id            uuid primary key default gen_random_uuid(),
  idp_user_id   text not null unique,
  email         text not null,
  name          text,
  password_hash text,
  created_at    timestamptz not null default now()
);
create unique index users_email on users (lower(email));

create table memberships (
  account_id uuid not null references accounts (id) on delete cascade,
  user_id    uuid not null references users (id) on delete cascade,
  role       text not null check (role in ('owner', 'admin', 'editor', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (account_id, user_id)
);

create table api_keys (
  id           uuid primary key default gen_random_uuid(),
  account_id   uuid not null references accounts (id) on delete cascade,
  user_id      uuid references users (id) on delete set null,
  name         text not null,
  scopes       text[] not null,
  key_hash     text not null unique,  -- sha256 hex of the raw key; the raw key is never stored
  hint         text not null,         -- "mailgrove_…abcd", for lists
  expires_at   timestamptz,
  revoked_at   timestamptz,
  last_used_at timestamptz,
  created_at   timestamptz not null default now()
);
create index api_keys_account on api_keys (account_id);

create table fields (
  id         uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  key        text not null,
  name       text not null,
  type       text not null check (type in ('text', 'number', 'date', 'boolean')),
  created_at timestamptz not null default now(),
  unique (account_id, key)
);

create table subscribers (
  id            uuid primary key default gen_random_uuid(),
  account_id    uuid not null references accounts (id) on delete cascade,
  email         text not null,
  first_name    text,
  last_name     text,
  phone         text,
  status        text not null default 'active' check (status in ('active', 'unsubscribed', 'bounced', 'complained')),
  custom_fields jsonb not null default '{}',
  source        text not null default 'api',
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  unsubscribed_at timestamptz
);
create unique index subscribers_account_email on subscribers (account_id, lower(email));
create index subscribers_account_created on subscribers (account_id, created_at desc, id desc);
create index subscribers_account_status on subscribers (account_id, status);
-- search is ILIKE '%term%' on three columns; trigram indexes keep it fast at millions of rows
create index subscribers_email_trgm on subscribers using gin (lower(email) gin_trgm_ops);
create index subscribers_first_name_trgm on subscribers using gin (lower(first_name) gin_trgm_ops);
create index subscribers_last_name_trgm on subscribers using gin (lower(last_name) gin_trgm_ops);

create table groups (
  id         uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  name       text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index groups_account_name on groups (account_id, lower(name));

create table subscriber_groups (
  group_id      uuid not null references groups (id) on delete cascade,
  subscriber_id uuid not null references subscribers (id) on delete cascade,
  account_id    uuid not null references accounts (id) on delete cascade,
  created_at    timestamptz not null default now(),
  primary key (group_id, subscriber_id)
);
create index subscriber_groups_subscriber on subscriber_groups (subscriber_id);

create table subscriber_notes (
  id            uuid primary key default gen_random_uuid(),
  account_id    uuid not null references accounts (id) on delete cascade,
  subscriber_id uuid not null references subscribers (id) on delete cascade,
  content       text not null,
  created_at    timestamptz not null default now()
);
create index subscriber_notes_subscriber on subscriber_notes (subscriber_id, created_at);

-- Every state change writes one row here in the same transaction. Webhooks, automations,
-- activity and stats read it. subscriber_id ties engagement history to a subscriber; deleting the
-- subscriber deletes that history (spec), but subscriber.deleted itself is written with subscriber_id null.
create table events (
  id            uuid primary key default gen_random_uuid(),
  seq           bigserial not null unique,
  account_id    uuid not null references accounts (id) on delete cascade,
  type          text not null,
  subscriber_id uuid references subscribers (id) on delete cascade,
  data          jsonb not null default '{}',
  created_at    timestamptz not null default now()
);
create index events_subscriber on events (subscriber_id, created_at desc) where subscriber_id is not null;
create index events_account_seq on events (account_id, seq);

-- forget_subscriber keeps only a salted hash so a later import does not silently re-add the address
create table suppressions (
  account_id uuid not null references accounts (id) on delete cascade,
  email_hash text not null,
  reason     text not null,
  created_at timestamptz not null default now(),
  primary key (account_id, email_hash)
);

-- instance-wide values, e.g. the generated HMAC secret when MAILGROVE_SECRET is not set, so that every
-- instance on one database signs tokens alike
create table instance_settings (
  key        text primary key,
  value      text not null,
  created_at timestamptz not null default now()
);
