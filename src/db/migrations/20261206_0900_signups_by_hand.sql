-- A pending double opt-in sign-up can be confirmed by hand (the marketer has the consent some other way):
-- who did it and why stay on the row as the record of that consent.
alter table pending_signups add column confirmed_by text;
alter table pending_signups add column confirm_reason text;
-- the account's sign-up list, newest first
create index pending_signups_account_created on pending_signups (account_id, created_at desc);
