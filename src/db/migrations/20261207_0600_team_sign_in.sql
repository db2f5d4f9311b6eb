-- Team sign-in: invitations by email, password reset links, TOTP two-factor sign-in and a list of
-- sessions. Every token sent by mail or handed to the browser is stored only as its SHA-256, so a copy of
-- these tables signs nobody in and accepts nothing; the TOTP secret is sealed with the instance secret.

-- An owner or admin invites an address to the account with a role; the link sets the password (or, for
-- someone who already has one, asks for it) and adds the membership. Single use (accepted_at), expiring.
create table invitations (
  id          uuid primary key default gen_random_uuid(),
  account_id  uuid not null references accounts (id) on delete cascade,
  email       text not null,
  name        text,
  role        text not null check (role in ('admin', 'editor', 'viewer')),
  token_hash  text not null unique,
  invited_by  uuid references users (id) on delete set null,
  created_at  timestamptz not null default now(),
  sent_at     timestamptz not null default now(),
  expires_at  timestamptz not null,
  accepted_at timestamptz
);
-- one open invitation per address and account: inviting again is a resend
create unique index invitations_open on invitations (account_id, lower(email)) where accepted_at is null;

-- "Forgot password?": a one-hour, single-use link per request.
create table password_resets (
  id         uuid primary key default gen_random_uuid(),
  user_id    uuid not null references users (id) on delete cascade,
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at    timestamptz
);
create index password_resets_user on password_resets (user_id);

-- TOTP: the secret being enrolled (until a code confirms it) and the confirmed one, both sealed; the
-- time step of the last code accepted, so a code cannot be used twice within its window.
alter table users add column totp_pending_secret text;
alter table users add column totp_secret text;
alter table users add column totp_enabled_at timestamptz;
alter table users add column totp_last_step integer;

-- ten single-use recovery codes per enrolment, stored hashed
create table recovery_codes (
  user_id   uuid not null references users (id) on delete cascade,
  code_hash text not null,
  used_at   timestamptz,
  primary key (user_id, code_hash)
);

-- between the password and the code: a short-lived challenge the browser holds, not a session
create table sign_in_challenges (
  token_hash text primary key,
  user_id    uuid not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sign_in_challenges_expires on sign_in_challenges (expires_at);

-- what a member sees in their list of sessions
alter table sessions add column user_agent text;
alter table sessions add column ip text;
