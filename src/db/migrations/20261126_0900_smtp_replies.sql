-- What the mail server answered for each campaign recipient, and why a row failed.
--
-- smtp_code / smtp_status / smtp_reply: the last reply for the row (basic code, RFC 3463 enhanced code,
-- the text as said); null when no server answered (the outbox, a lost connection). last_error stays as it
-- was for readers that already use it.
-- failure, for rows that ended 'failed': bounced (the mailbox does not exist), blocked (a policy
-- refusal, 5.7.x), rejected (another permanent refusal), expired (temporary refusals until the attempts
-- ran out), error (no message could be composed, or no server answered until the attempts ran out).
alter table campaign_recipients add column smtp_code int;
alter table campaign_recipients add column smtp_status text;
alter table campaign_recipients add column smtp_reply text;
alter table campaign_recipients add column failure text
  check (failure in ('bounced', 'blocked', 'rejected', 'expired', 'error'));

-- Soft bounces in a row per subscriber, written only when a soft bounce arrives (never per delivered
-- email): "in a row" is read at that moment as "no email delivered since the previous soft bounce".
create table soft_bounce_streaks (
  subscriber_id  uuid primary key references subscribers (id) on delete cascade,
  account_id     uuid not null references accounts (id) on delete cascade,
  count          int not null,
  last_at        timestamptz not null
);
