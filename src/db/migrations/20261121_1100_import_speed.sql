-- Import speed. Measured on one 1000-row import batch: the foreign-key checks of `events` (one
-- `SELECT … FOR KEY SHARE` per inserted event and key: subscribers.id and accounts.id) cost as much as the
-- events insert itself — ~60 % of a batch on PGlite, ~27 % on PostgreSQL.
--
-- 1. events loses its two foreign keys (and subscribers its account_id one, below); statement-level AFTER
--    DELETE triggers keep what the ON DELETE CASCADE gave: deleting subscribers (any path: the API, forget_subscriber, an account's cascade)
--    deletes their events, deleting an account deletes all of its events. One set-based DELETE per
--    statement, through the existing indexes. What is lost is only the insert-time check that the ids
--    exist: every writer takes them from rows it just read or wrote in the same transaction.
alter table events drop constraint if exists events_subscriber_id_fkey;
alter table events drop constraint if exists events_account_id_fkey;

create function events_delete_with_subscribers() returns trigger language plpgsql as $$
begin
  delete from events e using gone g where e.subscriber_id = g.id and e.subscriber_id is not null;
  return null;
end $$;
create trigger subscribers_delete_events after delete on subscribers
  referencing old table as gone for each statement execute function events_delete_with_subscribers();

create function events_delete_with_accounts() returns trigger language plpgsql as $$
begin
  delete from events e using gone g where e.account_id = g.id;
  return null;
end $$;
create trigger accounts_delete_events after delete on accounts
  referencing old table as gone for each statement execute function events_delete_with_accounts();

-- The same for subscribers.account_id (1000 account-row checks per batch, ~6 % of a batch on PGlite, ~10 % on
-- PostgreSQL): deleting an account deletes its subscribers in one statement, and their own cascades
-- (memberships, notes, send ledger, runs, and the events trigger above) follow from that DELETE.
alter table subscribers drop constraint if exists subscribers_account_id_fkey;
create function subscribers_delete_with_accounts() returns trigger language plpgsql as $$
begin
  delete from subscribers s using gone g where s.account_id = g.id;
  return null;
end $$;
create trigger accounts_delete_subscribers after delete on accounts
  referencing old table as gone for each statement execute function subscribers_delete_with_accounts();

-- 2. Staging in chunks: one row per chunk of up to 1000 staged rows (a jsonb array of
--    {row_no, email, first_name, last_name, phone, custom_fields, error}, null keys left out) instead of one
--    row per CSV row — a thousand times fewer tuples and index entries to write and delete. The worker
--    expands the rows of its batch with jsonb_to_recordset inside its one statement. import_dups holds the
--    rows that a later row of the file overrides (same address, case-insensitive: the last row wins).
--    A job still staged in import_rows when this migration runs is lost with that table (pre-release).
drop table import_rows;
create table import_chunks (
  import_id uuid not null references imports (id) on delete cascade,
  first_row int not null,  -- row_no of the chunk's first and last row
  last_row  int not null,
  rows      jsonb not null,
  primary key (import_id, first_row)
);
-- written once, read once: uncompressed out-of-line storage saves the pglz work both ways (PGlite: 5.3 → 4.5 ms
-- to write a 1000-row chunk, 1.9 → 1.0 ms to expand it)
alter table import_chunks alter column rows set storage external;
create table import_dups (
  import_id uuid not null references imports (id) on delete cascade,
  row_no    int not null,
  primary key (import_id, row_no)
);
