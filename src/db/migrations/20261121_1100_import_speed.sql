-- Import speed (issue 3). Measured on one 1000-row import batch: the foreign-key checks of `events` (one
-- `SELECT … FOR KEY SHARE` per inserted event and key: subscribers.id and accounts.id) cost as much as the
-- events insert itself — ~60 % of a batch on PGlite, ~27 % on PostgreSQL.
--
-- 1. events loses its two foreign keys; statement-level AFTER DELETE triggers keep what the ON DELETE
--    CASCADE gave: deleting subscribers (any path: the API, forget_subscriber, an account's cascade)
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
