-- Campaigns and the per-recipient send ledger: the audience is frozen into
-- campaign_recipients when sending starts, and every row ends in exactly one terminal state, so
-- recipients = sent + failed + skipped + interrupted (+ queued/sending while in flight).
create table campaigns (
  id           uuid primary key default gen_random_uuid(),
  account_id   uuid not null references accounts (id) on delete cascade,
  name         text not null,
  subject      text,
  preview_text text,
  from_name    text,
  from_email   text,
  reply_to     text,
  content_html text,
  content_text text,
  -- no foreign keys: a deleted group or segment is reported when the campaign is scheduled
  group_ids    uuid[] not null default '{}',
  segment_ids  uuid[] not null default '{}',
  status       text not null default 'draft' check (status in ('draft', 'scheduled', 'sending', 'sent', 'cancelled')),
  delivery     text check (delivery in ('instant', 'scheduled')),
  scheduled_at timestamptz,
  started_at   timestamptz,
  finished_at  timestamptz,
  cancelled_at timestamptz,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now()
);
create index campaigns_account_created on campaigns (account_id, created_at desc, id desc);
-- the scheduler's question every few seconds: which scheduled campaigns are due?
create index campaigns_due on campaigns (scheduled_at) where status = 'scheduled';
create index campaigns_sending on campaigns (started_at) where status = 'sending';

create table campaign_recipients (
  id              bigint generated always as identity primary key,
  campaign_id     uuid not null references campaigns (id) on delete cascade,
  account_id      uuid not null references accounts (id) on delete cascade,
  -- deleting a subscriber removes their engagement history (spec), ledger rows included
  subscriber_id   uuid not null references subscribers (id) on delete cascade,
  email           text not null,
  state           text not null default 'queued' check (state in ('queued', 'sending', 'sent', 'failed', 'skipped', 'interrupted')),
  attempts        int not null default 0,
  next_attempt_at timestamptz,      -- set after a 4xx reply: not claimed again before then
  worker_id       uuid,             -- the send worker holding the row while it is 'sending'
  message_id      text,
  last_error      text,
  sent_at         timestamptz,
  opens           int not null default 0,
  clicks          int not null default 0,
  opened_at       timestamptz,
  clicked_at      timestamptz,
  unsubscribed_at timestamptz,
  bounced_at      timestamptz,
  soft_bounces    int not null default 0,
  complained_at   timestamptz,
  unique (campaign_id, subscriber_id)
);
-- workers claim the lowest queued ids of a campaign; the partial index stays as small as the backlog
create index campaign_recipients_queued on campaign_recipients (campaign_id, id) where state = 'queued';
create index campaign_recipients_sending on campaign_recipients (worker_id) where state = 'sending';
create index campaign_recipients_subscriber on campaign_recipients (subscriber_id);
-- bounce hooks find the message by its Message-ID
create index campaign_recipients_message on campaign_recipients (message_id) where message_id is not null;

-- the links of a campaign's HTML, by index: a click token carries the index, the redirect target
-- comes from here (no open redirect)
create table campaign_links (
  campaign_id uuid not null references campaigns (id) on delete cascade,
  idx         int not null,
  url         text not null,
  primary key (campaign_id, idx)
);

-- live send workers; a row in 'sending' whose worker stopped heartbeating was cut off mid-send
create table send_workers (
  id           uuid primary key,
  heartbeat_at timestamptz not null default now()
);

-- the global send-rate token bucket (SEND_RATE_PER_SECOND), shared by every instance
create table send_rate (
  id         int primary key check (id = 1),
  tokens     double precision not null default 0,
  updated_at timestamptz not null default now()
);
insert into send_rate (id) values (1);

-- Amazon SNS asks for a subscription confirmation; we never fetch URLs from a webhook body, so the
-- operator confirms it by hand (the URL is recorded here and logged)
create table bounce_hook_confirmations (
  id            uuid primary key default gen_random_uuid(),
  account_id    uuid not null references accounts (id) on delete cascade,
  provider      text not null,
  topic_arn     text,
  subscribe_url text not null,
  created_at    timestamptz not null default now()
);
