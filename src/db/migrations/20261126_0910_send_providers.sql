-- The send engine's claims and per-provider backoff.
--
-- A send lane claims a batch by writing its worker_id on rows that stay 'queued'; a row becomes 'sending'
-- only when its message goes to the mail server. So a crash leaves 'sending' only what was in flight
-- (those become 'interrupted', never re-sent), and the claims of a worker that stopped heartbeating go
-- back to the queue (worker_id cleared), as if never claimed.
drop index if exists campaign_recipients_queued;
create index campaign_recipients_unclaimed on campaign_recipients (campaign_id, id)
  where state = 'queued' and worker_id is null;
create index campaign_recipients_claimed on campaign_recipients (worker_id)
  where state = 'queued' and worker_id is not null;

-- the provider whose backoff put a queued row back (shown as "deferred by" while it waits)
alter table campaign_recipients add column deferred_by text;
create index campaign_recipients_deferred on campaign_recipients (campaign_id, deferred_by)
  where state = 'queued' and deferred_by is not null;

-- a provider that answered 421 / 4.7.x is not sent to until `until`, by any instance; `level` counts the
-- backoffs in a row (the wait doubles with each, up to PROVIDER_BACKOFF_MAX_MS)
create table provider_backoff (
  provider   text primary key,
  level      int not null default 1,
  until      timestamptz not null,
  updated_at timestamptz not null default now()
);
