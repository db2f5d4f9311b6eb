-- What every commercial email must carry and what an account decides before a send goes out.
-- postal_address: the sender's physical address (CAN-SPAM), shown by the automatic footer and
-- {{ account.postal_address }}; null until the account gives one, which the checks before a send report.
-- blocking_checks: checks before a send this account wants to refuse a send on, beyond the instance's
-- (SEND_CHECKS); an account can add checks there, never take away the instance's.
alter table accounts add column postal_address text;
alter table accounts add column blocking_checks text[] not null default '{}';

-- Open and click tracking per campaign. Existing campaigns keep what their account did until now.
alter table campaigns add column track_opens boolean not null default true;
alter table campaigns add column track_clicks boolean not null default true;
update campaigns c set track_opens = a.tracking_enabled, track_clicks = a.tracking_enabled
  from accounts a where a.id = c.account_id and not a.tracking_enabled;
