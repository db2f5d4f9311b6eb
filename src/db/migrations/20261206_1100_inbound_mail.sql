-- Late bounces, complaints and mailto unsubscribes that come home by mail (docs/deliverability.md).
--
-- outbox.envelope_from: the SMTP MAIL FROM when it is not the From address (the VERP return path), so the
-- embedded mailbox shows the same envelope an SMTP relay would have been given.
alter table outbox add column envelope_from text;

-- What a report that arrived later said about one email, on the email's own row: feedback is what it
-- was (bounced: a permanent failure; soft_bounced: a transient one; blocked: a policy refusal, 5.7.x;
-- delayed: a warning that the relay is still trying; complained: an abuse report), with the RFC 3463
-- status code and the remote server's diagnostic text as the report gave them.
alter table campaign_recipients add column feedback text
  check (feedback in ('bounced', 'soft_bounced', 'blocked', 'delayed', 'complained'));
alter table campaign_recipients add column feedback_status text;
alter table campaign_recipients add column feedback_detail text;
alter table campaign_recipients add column feedback_at timestamptz;
create index campaign_recipients_feedback on campaign_recipients (campaign_id, feedback_at desc)
  where feedback_at is not null;

alter table automation_emails add column feedback text
  check (feedback in ('bounced', 'soft_bounced', 'blocked', 'delayed', 'complained'));
alter table automation_emails add column feedback_status text;
alter table automation_emails add column feedback_detail text;
alter table automation_emails add column feedback_at timestamptz;

-- Every message the inbound listener or the bounce mailbox took, and what became of it. Attributed mail
-- (account_id set) keeps only the outcome; mail that could not be attributed (account_id null) keeps its
-- envelope, subject and first 256 KB for the operator to read, and is purged after 14 days.
create table inbound_mail (
  id          uuid primary key default gen_random_uuid(),
  account_id  uuid references accounts (id) on delete cascade,
  received_at timestamptz not null default now(),
  via         text not null check (via in ('smtp', 'imap')),
  outcome     text not null check (outcome in (
                'bounced', 'soft_bounced', 'blocked', 'delayed', 'complained', 'unsubscribed',
                'auto_reply', 'ignored', 'unmatched')),
  reason      text,
  mail_from   text,
  rcpt_to     text,
  subject     text,
  size        int not null,
  raw         bytea
);
create index inbound_mail_account on inbound_mail (account_id, received_at desc);
create index inbound_mail_unmatched on inbound_mail (received_at desc) where account_id is null;
