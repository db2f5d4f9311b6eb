-- Webhooks: endpoints, one delivery row per (webhook, event) with its retry schedule, the
-- attempt log, and the durable cursors of the loops that read the events log (webhook fan-out here,
-- automation triggers later).

create table webhooks (
  id               uuid primary key default gen_random_uuid(),
  account_id       uuid not null references accounts (id) on delete cascade,
  name             text not null,
  url              text not null,
  events           text[] not null,
  enabled          boolean not null default true,
  secret           text not null,             -- whsec_ + base64 of 24 random bytes (Standard Webhooks)
  last_delivery_at timestamptz,
  last_status_code int,
  -- first failed attempt since the last success; a webhook failing for WEBHOOK_DISABLE_AFTER_SECONDS is disabled
  failing_since    timestamptz,
  disabled_reason  text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
create index webhooks_account on webhooks (account_id, created_at desc, id desc);

-- One row per (webhook, event): fan-out may run twice, the second insert does nothing. No foreign key to
-- events: deleting a subscriber deletes its events, but what was already queued is still delivered, from
-- the payload kept here.
create table webhook_deliveries (
  id               uuid primary key default gen_random_uuid(),
  account_id       uuid not null references accounts (id) on delete cascade,
  webhook_id       uuid not null references webhooks (id) on delete cascade,
  event_id         uuid not null,
  event_type       text not null,
  payload          jsonb not null,
  is_test          boolean not null default false,
  status           text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempt_count    int not null default 0,
  next_attempt_at  timestamptz,
  -- a worker's lease on the row while it posts; a worker that dies lets it expire and another retries
  locked_until     timestamptz,
  last_status_code int,
  delivered_at     timestamptz,
  created_at       timestamptz not null default now(),
  unique (webhook_id, event_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_webhook on webhook_deliveries (webhook_id, created_at desc);
create index webhook_deliveries_account on webhook_deliveries (account_id);

create table webhook_delivery_attempts (
  id           uuid primary key default gen_random_uuid(),
  account_id   uuid not null references accounts (id) on delete cascade,
  delivery_id  uuid not null references webhook_deliveries (id) on delete cascade,
  attempt      int not null,
  status_code  int,
  duration_ms  int not null,
  response     text,                          -- first 1 KB of the response body
  error        text,
  created_at   timestamptz not null default now()
);
create index webhook_delivery_attempts_delivery on webhook_delivery_attempts (delivery_id, attempt);

-- Where each reader of the events log has got to (events.seq). Starts at the log's current end, so a
-- deployment that adds a reader does not replay its whole history.
create table if not exists event_cursors (
  name       text primary key,
  last_seq   bigint not null,
  updated_at timestamptz not null default now()
);
insert into event_cursors (name, last_seq) select 'webhooks', coalesce(max(seq), 0) from events on conflict do nothing;
