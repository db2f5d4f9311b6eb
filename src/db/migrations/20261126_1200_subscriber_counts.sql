-- Subscriber counts kept by the database in the transaction of every write, so that the counts users see
-- (the list's total, the stats, get_subscriber_count, the overview, each group's subscriber_count and
-- active_count) are exact and read from a few rows instead of counting up to a million subscribers.
--
-- subscriber_counts holds deltas: each writing statement inserts one row per (account, group, status) it
-- changed, with the signed number of subscribers; a count is the sum of its rows. Inserting instead of
-- updating one row per key means concurrent writers (two import runners, API calls) never wait for each
-- other's counter row. group_id null is the account as a whole; a group row counts its members by their
-- status. compact (subscribers/countQueries.ts) folds an account's rows into one per key from time to time.
create table subscriber_counts (
  account_id uuid not null,
  group_id   uuid,
  status     text not null,
  n          bigint not null
);
create index subscriber_counts_key on subscriber_counts (account_id, group_id);

-- subscribers deleted by the statement running now, with their status. When a subscriber is deleted,
-- PostgreSQL runs the subscribers' statement trigger before the statement trigger of the memberships its
-- cascade deleted, and by then the subscriber row is gone: the memberships' trigger reads the status here.
-- Rows outlive their statement only as garbage (their memberships were counted before the commit that
-- made them visible), so each delete first clears the rows of its accounts that it can see.
create table subscriber_count_tombstones (
  subscriber_id uuid not null,
  account_id    uuid not null,
  status        text not null
);
create index subscriber_count_tombstones_subscriber on subscriber_count_tombstones (subscriber_id);

create function subscriber_counts_insert() returns trigger language plpgsql as $$
begin
  insert into subscriber_counts (account_id, group_id, status, n)
  select account_id, null, status, count(*) from added group by account_id, status;
  return null;
end $$;
create trigger subscribers_count_insert after insert on subscribers
  referencing new table as added for each statement execute function subscriber_counts_insert();

create function subscriber_counts_delete() returns trigger language plpgsql as $$
begin
  insert into subscriber_counts (account_id, group_id, status, n)
  select account_id, null, status, -count(*) from gone group by account_id, status;
  delete from subscriber_count_tombstones where account_id in (select account_id from gone);
  insert into subscriber_count_tombstones (subscriber_id, account_id, status)
  select id, account_id, status from gone;
  return null;
end $$;
create trigger subscribers_count_delete after delete on subscribers
  referencing old table as gone for each statement execute function subscriber_counts_delete();

-- a status change moves the subscriber between the account's counts and those of each of its groups. Its
-- memberships are read under a key-share lock, with a fresh snapshot after the update's row lock: one that
-- another transaction is removing is waited for (and then not counted, since its remover read the status
-- before this change), one being added is not seen here but reads this new status (see below).
create function subscriber_counts_update() returns trigger language plpgsql as $$
begin
  with changed as (
    select o.account_id, o.id, o.status as was, n.status as now
    from old_rows o join new_rows n on n.id = o.id
    where o.status is distinct from n.status
  ), m as (
    select sg.subscriber_id, sg.group_id from subscriber_groups sg
    where sg.subscriber_id in (select id from changed) for key share
  ), d as (
    select account_id, null::uuid as group_id, was as status, -1 as n from changed
    union all select account_id, null::uuid, now, 1 from changed
    union all select c.account_id, m.group_id, c.was, -1 from changed c join m on m.subscriber_id = c.id
    union all select c.account_id, m.group_id, c.now, 1 from changed c join m on m.subscriber_id = c.id
  )
  insert into subscriber_counts (account_id, group_id, status, n)
  select account_id, group_id, status, sum(n) from d group by account_id, group_id, status having sum(n) <> 0;
  return null;
end $$;
create trigger subscribers_count_update after update on subscribers
  referencing old table as old_rows new table as new_rows for each statement execute function subscriber_counts_update();

-- memberships count by their subscriber's status, read under a share lock: a status change in progress is
-- waited for and its new status read (its own trigger could not see this new membership)
create function subscriber_counts_join() returns trigger language plpgsql as $$
begin
  with s as (
    select id, status from subscribers where id in (select subscriber_id from added) for share
  )
  insert into subscriber_counts (account_id, group_id, status, n)
  select a.account_id, a.group_id, s.status, count(*) from added a join s on s.id = a.subscriber_id
  group by a.account_id, a.group_id, s.status;
  return null;
end $$;
create trigger subscriber_groups_count_insert after insert on subscriber_groups
  referencing new table as added for each statement execute function subscriber_counts_join();

-- a membership leaves with the status its subscriber has now (a status change in progress waits for this
-- transaction, above), or had when this statement's cascade deleted it (the tombstones above)
create function subscriber_counts_leave() returns trigger language plpgsql as $$
begin
  insert into subscriber_counts (account_id, group_id, status, n)
  select g.account_id, g.group_id, coalesce(s.status, t.status), -count(*)
  from gone g
    left join subscribers s on s.id = g.subscriber_id
    left join subscriber_count_tombstones t on s.id is null and t.subscriber_id = g.subscriber_id
  where s.id is not null or t.subscriber_id is not null
  group by g.account_id, g.group_id, coalesce(s.status, t.status);
  return null;
end $$;
create trigger subscriber_groups_count_delete after delete on subscriber_groups
  referencing old table as gone for each statement execute function subscriber_counts_leave();

-- a deleted account's counts go with it. The name sorts after accounts_delete_subscribers: statement
-- triggers fire in name order, and that one's cascade still writes deltas for the account.
create function subscriber_counts_forget_accounts() returns trigger language plpgsql as $$
begin
  delete from subscriber_counts c using gone g where c.account_id = g.id;
  return null;
end $$;
create trigger accounts_forget_subscriber_counts after delete on accounts
  referencing old table as gone for each statement execute function subscriber_counts_forget_accounts();

-- the counts computed from the rows themselves: run here for existing data, and by anyone who loaded rows
-- with triggers off (session_replication_role = replica, as the benches' seeding does)
create function subscriber_counts_rebuild() returns void language plpgsql as $$
begin
  lock table subscribers, subscriber_groups in share mode;
  delete from subscriber_counts;
  delete from subscriber_count_tombstones;
  insert into subscriber_counts (account_id, group_id, status, n)
  select account_id, null, status, count(*) from subscribers group by account_id, status;
  insert into subscriber_counts (account_id, group_id, status, n)
  select sg.account_id, sg.group_id, s.status, count(*)
  from subscriber_groups sg join subscribers s on s.id = sg.subscriber_id
  group by sg.account_id, sg.group_id, s.status;
end $$;
select subscriber_counts_rebuild();
