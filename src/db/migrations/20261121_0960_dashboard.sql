-- Dashboard sign-in sessions. The cookie holds a random token; only its SHA-256 is stored,
-- so a copy of this table signs nobody in. A session is bound to one account the user is a member of;
-- the role is read from memberships on every request, so removing a member ends their access at once.
create table sessions (
  id           uuid primary key default gen_random_uuid(),
  token_hash   text not null unique,
  user_id      uuid not null references users (id) on delete cascade,
  account_id   uuid not null references accounts (id) on delete cascade,
  created_at   timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at   timestamptz not null
);
create index sessions_user on sessions (user_id);
create index sessions_expires on sessions (expires_at);
