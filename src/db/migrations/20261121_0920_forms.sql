-- Signup forms, double opt-in signups waiting for confirmation, and who signed up
-- through which form (get_form_subscribers). Pending signups live here, not in subscribers, so the
-- spec's status set and counts stay exact until the address owner confirms.
create table forms (
  id              uuid primary key default gen_random_uuid(),
  account_id      uuid not null references accounts (id) on delete cascade,
  name            text not null,
  type            text not null default 'hosted' check (type in ('hosted', 'embedded', 'popup')),
  -- no foreign keys (arrays): a deleted group is skipped when a signup joins the form's groups
  group_ids       uuid[] not null default '{}',
  double_opt_in   boolean not null default false,
  fields          jsonb not null,
  success_message text not null,
  redirect_url    text,
  active          boolean not null default true,
  views           int not null default 0,
  submissions     int not null default 0,
  confirmations   int not null default 0,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now()
);
create index forms_account_created on forms (account_id, created_at desc, id desc);

-- One unconfirmed signup per (form, address): a resubmission refreshes it. The confirmation token is
-- signed over (id, expiry), so nothing secret is stored here.
create table pending_signups (
  id           uuid primary key default gen_random_uuid(),
  account_id   uuid not null references accounts (id) on delete cascade,
  form_id      uuid not null references forms (id) on delete cascade,
  email        text not null,
  -- first_name, last_name, phone, custom_fields as submitted (already validated and coerced)
  data         jsonb not null default '{}',
  expires_at   timestamptz not null,
  last_sent_at timestamptz,
  confirmed_at timestamptz,
  subscriber_id uuid references subscribers (id) on delete set null,
  created_at   timestamptz not null default now()
);
create unique index pending_signups_form_email on pending_signups (form_id, lower(email)) where confirmed_at is null;
create index pending_signups_account_email on pending_signups (account_id, lower(email));
create index pending_signups_expires on pending_signups (expires_at) where confirmed_at is null;

create table form_signups (
  form_id       uuid not null references forms (id) on delete cascade,
  subscriber_id uuid not null references subscribers (id) on delete cascade,
  account_id    uuid not null references accounts (id) on delete cascade,
  created_at    timestamptz not null default now(),
  primary key (form_id, subscriber_id)
);
create index form_signups_form_created on form_signups (form_id, created_at desc);
create index form_signups_subscriber on form_signups (subscriber_id);
