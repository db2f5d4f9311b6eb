-- Revoked (or deleted) API keys reach every instance's key cache at once: the key's id is sent on
-- `mailgrove_key_revoked`, which each process's change listener hears (src/db/changeListener.ts). Row
-- level, as revocations are rare; last_used_at updates do not fire it. On PGlite nothing listens: one
-- process, whose revoke drops the key from its own cache before it answers.
create function mailgrove_notify_key_revoked() returns trigger language plpgsql as $$
begin
  perform pg_notify('mailgrove_key_revoked', old.id::text);
  return null;
end $$;

create trigger api_keys_notify_revoked after update of revoked_at on api_keys
  for each row when (new.revoked_at is not null and old.revoked_at is null)
  execute function mailgrove_notify_key_revoked();
create trigger api_keys_notify_deleted after delete on api_keys
  for each row execute function mailgrove_notify_key_revoked();
