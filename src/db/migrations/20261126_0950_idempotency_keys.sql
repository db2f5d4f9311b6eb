-- Idempotency-Key on the REST POST routes: the first response to (account, key) is kept for 24 hours and
-- replayed to a retry of the same request. `status` is null while the first request still runs.
create table idempotency_keys (
  account_id  uuid not null references accounts (id) on delete cascade,
  key         text not null,
  fingerprint text not null,          -- sha256 of method, route and body: the same key with another request is refused
  status      int,
  response    text,
  content_type text,
  created_at  timestamptz not null default now(),
  primary key (account_id, key)
);
create index idempotency_keys_created_at on idempotency_keys (created_at);
