-- Open and click tracking of automation emails, the counterpart of campaign_recipients
-- and campaign_links. One row per email a run's send_email step hands to the mail server: the tracking
-- token names this row (so it identifies the automation, the run, the step and the subscriber), and opens
-- and clicks count on it. Deleting a subscriber removes their engagement history, as for campaigns.
create table automation_emails (
  id            uuid primary key default gen_random_uuid(),
  account_id    uuid not null references accounts (id) on delete cascade,
  automation_id uuid not null references automations (id) on delete cascade,
  run_id        uuid not null references automation_runs (id) on delete cascade,
  -- the step's path in the automation's steps ("0", "2.then.1")
  step          text not null,
  subscriber_id uuid not null references subscribers (id) on delete cascade,
  -- 'sending' is committed before the mail server sees the email (at most once, like the run)
  state         text not null default 'sending' check (state in ('sending', 'sent', 'failed', 'interrupted')),
  -- which link set of automation_links the email's /t/c/ links index into; null: no link was rewritten
  links_key     uuid,
  message_id    text,
  sent_at       timestamptz,
  opens         int not null default 0,
  clicks        int not null default 0,
  opened_at     timestamptz,
  clicked_at    timestamptz,
  created_at    timestamptz not null default now(),
  -- a run passes each step once; a 4xx retry of the step reuses the row (and so the token)
  unique (run_id, step)
);
create index automation_emails_automation on automation_emails (automation_id, step);
create index automation_emails_subscriber on automation_emails (subscriber_id);

-- The trackable links of a send_email template, by index, keyed by their content (md5 of the link list):
-- steps can be edited while the automation is disabled, and an email sent before the edit must still
-- redirect to the links it contained. The redirect target always comes from here.
create table automation_links (
  automation_id uuid not null references automations (id) on delete cascade,
  links_key     uuid not null,
  idx           int not null,
  url           text not null,
  primary key (automation_id, links_key, idx)
);
