-- A send lane's claim is one row here instead of its worker id written on each ledger row it takes.
--
-- A claim names the id range [lo, hi] of one campaign's ledger that a worker reads its batch from; other
-- lanes skip the queued rows inside a live claim's range. The ledger rows themselves are written only
-- twice: 'sending' (with the worker's id) as their message goes to the mail server, and the outcome. When
-- a worker stops heartbeating its claims are dropped: the 'sending' rows in their ranges become
-- 'interrupted', the rows it never handed over are queued as they always were.
create table send_claims (
  id          bigint generated always as identity primary key,
  worker_id   uuid not null,
  campaign_id uuid not null references campaigns (id) on delete cascade,
  lo          bigint not null,
  hi          bigint not null,
  created_at  timestamptz not null default now()
);
create index send_claims_campaign on send_claims (campaign_id);
create index send_claims_worker on send_claims (worker_id);

-- rows a worker of the earlier engine held (claimed, or in flight) become claims of that worker, so the
-- usual recovery gives them back or interrupts them once it stops heartbeating
insert into send_claims (worker_id, campaign_id, lo, hi)
select worker_id, campaign_id, min(id), max(id)
  from campaign_recipients
 where worker_id is not null and state in ('queued', 'sending')
 group by worker_id, campaign_id;

-- the send path no longer reads these: every index a ledger write has to maintain costs each send
-- (the claimed rows are in send_claims; the rows in flight are found through their worker's claims)
drop index if exists campaign_recipients_claimed;
drop index if exists campaign_recipients_sending;
