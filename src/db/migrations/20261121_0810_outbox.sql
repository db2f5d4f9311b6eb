-- The embedded default's mailbox: without SMTP_URL every message lands here, so a fresh
-- `npm start` sends end to end with nothing else installed.
create table outbox (
  id         uuid primary key default gen_random_uuid(),
  account_id uuid references accounts (id) on delete cascade,
  message_id text not null,
  from_addr  text not null,
  to_addr    text not null,
  subject    text not null,
  html       text,
  text       text,
  headers    jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index outbox_account_created on outbox (account_id, created_at desc);
