-- Bounces, complaints and unsubscribes of automation emails (send_email has the same "ledger-like
-- accounting" as campaigns). The columns mirror campaign_recipients: a bounce or complaint report whose
-- Message-ID names an automation email marks its row (domain/bounces.ts), the unsubscribe link of an
-- automation email marks the subscriber's latest email of that automation (domain/unsubscribe.ts), and the
-- automation's stats count them (domain/automationEmails.ts). Set once: a provider's retry counts nothing.
alter table automation_emails
  add column unsubscribed_at timestamptz,
  add column bounced_at      timestamptz,
  add column soft_bounces    int not null default 0,
  add column complained_at   timestamptz;
