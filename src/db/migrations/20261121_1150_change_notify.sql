-- Change notifications for the in-process read caches (src/db/readCache.ts). Each process caches full
-- subscriber reads; a write through another process must reach it. One statement-level trigger per table
-- whose rows appear in a cached read sends a payload-less notification (PostgreSQL folds identical
-- notifications of one transaction into one, delivered at commit). On PGlite nothing listens: one process
-- owns the data dir and ticks its own clock.
create function mailgrove_notify_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('mailgrove_changed', '');
  return null;
end $$;

create trigger subscribers_notify_changed after insert or update or delete or truncate on subscribers
  for each statement execute function mailgrove_notify_changed();
create trigger subscriber_groups_notify_changed after insert or update or delete or truncate on subscriber_groups
  for each statement execute function mailgrove_notify_changed();
create trigger subscriber_notes_notify_changed after insert or update or delete or truncate on subscriber_notes
  for each statement execute function mailgrove_notify_changed();
create trigger groups_notify_changed after insert or update or delete or truncate on groups
  for each statement execute function mailgrove_notify_changed();
