-- Which subscribers hold a suppressed (forgotten) address, so a campaign audience leaves them out with an
-- anti-join instead of hashing every address. Suppressions are HMACs under the instance secret, which never
-- enters the database, so SQL cannot hash an address itself. But forget deletes the subscriber in the
-- transaction that stores the hash, so only an address written later can match one: the triggers list each
-- subscriber whose address is written while its account has suppressions (suppressed null: not checked
-- yet). The campaigns context hashes those few in the application when an audience includes them and
-- records the answer: true stays, a clean one is deleted; writing the address again asks again.
create table suppression_checks (
  subscriber_id uuid primary key references subscribers (id) on delete cascade,
  account_id    uuid not null references accounts (id) on delete cascade,
  suppressed    boolean check (suppressed)
);
create index suppression_checks_account on suppression_checks (account_id, suppressed);

-- one statement per insert (imports insert thousands of rows at once), reading the inserted rows as a table
create function mailgrove_check_inserted() returns trigger language plpgsql as $$
begin
  insert into suppression_checks (subscriber_id, account_id)
  select n.id, n.account_id from inserted n
  where exists (select 1 from suppressions p where p.account_id = n.account_id)
  on conflict (subscriber_id) do update set suppressed = null;
  return null;
end $$;

create trigger subscribers_check_inserted after insert on subscribers
  referencing new table as inserted for each statement execute function mailgrove_check_inserted();

-- a changed address is rare, and WHEN keeps every other update from calling the function at all
create function mailgrove_check_readdressed() returns trigger language plpgsql as $$
begin
  if exists (select 1 from suppressions p where p.account_id = new.account_id) then
    insert into suppression_checks (subscriber_id, account_id) values (new.id, new.account_id)
    on conflict (subscriber_id) do update set suppressed = null;
  else
    delete from suppression_checks where subscriber_id = new.id;
  end if;
  return null;
end $$;

create trigger subscribers_check_readdressed after update of email on subscribers
  for each row when (old.email is distinct from new.email) execute function mailgrove_check_readdressed();

-- subscribers that exist already were written before this table: check those of accounts with suppressions
insert into suppression_checks (subscriber_id, account_id)
select s.id, s.account_id from subscribers s
where exists (select 1 from suppressions p where p.account_id = s.account_id);
