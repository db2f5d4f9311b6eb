-- Double opt-in through the API: a sign-up may belong to no form (POST /subscribers with
-- double_opt_in and no form_id); it then uses the account's sender defaults and the built-in
-- confirmation mail. One unconfirmed API sign-up per (account, address), like one per (form, address).
alter table pending_signups alter column form_id drop not null;
create unique index pending_signups_api_email on pending_signups (account_id, lower(email))
  where form_id is null and confirmed_at is null;

-- The forms designer: a readable public address /f/<slug> (the id address keeps working) and the
-- design of the hosted page, embed and pop-up (heading, description, button, colours, consent, messages,
-- pop-up trigger), as one validated document.
alter table forms
  add column slug text,
  add column design jsonb not null default '{}';
create unique index forms_slug on forms (lower(slug)) where slug is not null;

-- Imports with a mapping: what the person chose for existing subscribers (update or skip), the consent
-- or source note written on each imported subscriber, and what a bad value does (refuse its row, or be
-- dropped from it with a warning). Skipped rows and warnings are counted; the first 100 warnings kept.
alter table imports
  add column options jsonb not null default '{}',
  add column skipped_count int not null default 0,
  add column warning_count int not null default 0,
  add column warnings jsonb not null default '[]';
