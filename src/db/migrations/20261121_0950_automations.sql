-- Automations: a trigger and a tree of steps per automation, and one durable run per
-- (automation, subscriber, triggering event) that walks the steps: its position, its next run time and a
-- history of what each step did. Counters on the automation are moved in the same transactions as the
-- runs, so stats survive a subscriber's deletion (which takes the subscriber's runs with it).
create table automations (
  id               uuid primary key default gen_random_uuid(),
  account_id       uuid not null references accounts (id) on delete cascade,
  name             text not null,
  enabled          boolean not null default true,
  -- triggers match only events from this moment on: enabling does not replay history
  enabled_at       timestamptz not null default now(),
  trigger          jsonb not null,
  steps            jsonb not null,
  -- date_anniversary: the account-local day the daily scan last ran for this automation
  scanned_on       date,
  runs_started     int not null default 0,
  runs_completed   int not null default 0,
  runs_canceled    int not null default 0,
  runs_failed      int not null default 0,
  emails_sent      int not null default 0,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
create index automations_account on automations (account_id, created_at desc, id desc);
create index automations_enabled on automations (account_id) where enabled;

create table automation_runs (
  id               uuid primary key default gen_random_uuid(),
  account_id       uuid not null references accounts (id) on delete cascade,
  automation_id    uuid not null references automations (id) on delete cascade,
  subscriber_id    uuid not null references subscribers (id) on delete cascade,
  -- the event that started the run (events.id, no foreign key: events go with their subscriber), or a
  -- derived id where one run per subscriber and campaign / per year is wanted (see automationTriggers.ts)
  trigger_event_id uuid not null,
  status           text not null default 'active' check (status in ('active', 'completed', 'canceled', 'failed')),
  -- path of the step to run next in the automation's steps ("0", "2.then.1"); null once finished
  current_step     text,
  -- 'sending' while an email of current_step may be with the mail server (at-most-once: never re-sent)
  step_state       text,
  step_attempts    int not null default 0,
  next_run_at      timestamptz,
  -- a worker's lease while it runs the steps; a worker that dies lets it lapse
  locked_until     timestamptz,
  history          jsonb not null default '[]',
  emails_sent      int not null default 0,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  finished_at      timestamptz,
  unique (automation_id, subscriber_id, trigger_event_id)
);
create index automation_runs_due on automation_runs (next_run_at) where status = 'active';
create index automation_runs_automation on automation_runs (automation_id, status, created_at desc);
create index automation_runs_subscriber on automation_runs (subscriber_id);

create table if not exists event_cursors (
  name       text primary key,
  last_seq   bigint not null,
  updated_at timestamptz not null default now()
);
insert into event_cursors (name, last_seq) select 'automations', coalesce(max(seq), 0) from events on conflict do nothing;
