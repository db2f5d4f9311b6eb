-- An account's own bounce mailbox (docs/deliverability.md): for relays that can only deliver bounces to a
-- mailbox, the IMAP URL is kept sealed under the instance secret (like DKIM keys); its host is kept
-- apart so the account can be shown where it points without its password; the poller writes when it
-- last looked and what went wrong.
create table bounce_mailboxes (
  account_id     uuid primary key references accounts (id) on delete cascade,
  url_sealed     text not null,
  host           text not null,
  last_polled_at timestamptz,
  last_error     text,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now()
);
create index bounce_mailboxes_due on bounce_mailboxes (last_polled_at nulls first);

-- One instance at a time polls a mailbox: the instance's own (BOUNCE_IMAP_URL, keyed by a hash of where it
-- points, so every instance configured with it shares the one lease) or an account's. A lease runs out
-- on its own, so a mailbox whose poller died is polled again by another instance.
create table mailbox_leases (
  mailbox     text primary key,
  holder      uuid not null,
  expires_at  timestamptz not null
);

-- Complaints sent to the fixed feedback-loop address are matched by the Message-ID of the email they quote.
create index automation_emails_message on automation_emails (message_id) where message_id is not null;

-- What each instance's inbound listener and bounce mailbox poller are doing, written with its heartbeat,
-- so Settings shows every live instance's and not only the one that answers.
alter table worker_instances add column inbound jsonb;
