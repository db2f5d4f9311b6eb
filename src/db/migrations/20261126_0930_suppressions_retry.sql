-- The suppression list an account manages, and retrying a campaign's failed recipients.
--
-- Manual entries keep the address beside its hash so the list can show and export it; forgotten entries
-- keep only the hash (forget_subscriber's promise), which the check makes sure of. Every entry gets an id
-- so the list can remove one. Bounced and complained subscribers are not copied here: the list reads them
-- from subscribers, so their entry follows the subscriber's status.
alter table suppressions add column id uuid not null default gen_random_uuid();
alter table suppressions add column email text;
alter table suppressions add constraint suppressions_email_manual_only check (email is null or reason = 'manual');
create unique index suppressions_id on suppressions (id);
create index suppressions_account_created on suppressions (account_id, created_at desc, id desc);

-- how many of the audience the freeze left out because their address is on the list
alter table campaigns add column suppressed_count integer not null default 0;

-- a retry puts failed rows back in the queue with a fresh round of attempts (SEND_MAX_ATTEMPTS applies per
-- round); each earlier round is kept here, oldest first: {state, failure, error, attempts, at}
alter table campaign_recipients add column previous_errors jsonb not null default '[]';
