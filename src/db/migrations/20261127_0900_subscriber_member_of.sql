-- Each subscriber's group ids, kept on the subscriber row by the database in the transaction of every
-- membership change, so that "members of these groups" is a condition on the row (member_of && ids)
-- instead of a join with subscriber_groups. The campaign audience of large groups (its count in the editor
-- and the freeze when sending starts) reads each subscriber once this way: 3 groups of 500,000 in an
-- account of 1,000,000 took 1.9-2.4 s as a hash semi-join over 1.5M memberships and 0.25-0.35 s as one
-- scan of subscribers.
--
-- subscriber_groups stays the source of truth; member_of may also hold ids of groups deleted since (a
-- group's delete does not rewrite its members' rows, which for a group of 500,000 would be as many row
-- updates): whoever reads it intersects it with the groups that exist (campaigns/ledgerQueries.ts).
alter table subscribers add column member_of uuid[] not null default '{}';

-- The triggers update the subscriber row first and then let the counts' triggers read it: their names
-- sort before subscriber_groups_count_*, since triggers of one event fire in name order. The other way
-- round, two transactions adding groups to one subscriber would each hold the counts' share lock on the
-- row and wait for the other's to update it. The new ids are appended to the row as it is when its lock
-- is granted (READ COMMITTED re-reads it), so concurrent changes to one subscriber's groups all stay;
-- rows that already hold every id (an import writes them with the subscriber) are not written again, and
-- when none needs it there is no UPDATE at all (which would run the subscribers' own statement triggers).
-- The rows are locked in id order first: two statements changing the groups of many of the same
-- subscribers (bulk actions) then wait for each other instead of deadlocking.
create function subscriber_member_of_join() returns trigger language plpgsql as $$
begin
  if exists (select 1 from added a join subscribers s on s.id = a.subscriber_id
             where a.group_id <> all(s.member_of)) then
    perform 1 from subscribers s where s.id in (select subscriber_id from added) order by s.id for no key update;
    update subscribers s set member_of = array(select distinct unnest(s.member_of || a.ids))
    from (select subscriber_id, array_agg(group_id) as ids from added group by subscriber_id) a
    where s.id = a.subscriber_id and not (s.member_of @> a.ids);
  end if;
  return null;
end $$;
create trigger subscriber_groups_a_member_of_insert after insert on subscriber_groups
  referencing new table as added for each statement execute function subscriber_member_of_join();

-- a membership that leaves takes its id off the row, unless its group is being deleted (see above)
-- (or its subscriber: a subscriber's delete cascades to its memberships, and its row is gone already)
create function subscriber_member_of_leave() returns trigger language plpgsql as $$
begin
  if exists (select 1 from gone g join subscribers s on s.id = g.subscriber_id
             where g.group_id = any(s.member_of) and exists (select 1 from groups where groups.id = g.group_id)) then
    perform 1 from subscribers s where s.id in (select subscriber_id from gone) order by s.id for no key update;
    update subscribers s set member_of = array(select g from unnest(s.member_of) g where g <> all(r.ids))
    from (
      select subscriber_id, array_agg(group_id) as ids from gone
      where exists (select 1 from groups where groups.id = gone.group_id)
      group by subscriber_id
    ) r
    where s.id = r.subscriber_id and s.member_of && r.ids;
  end if;
  return null;
end $$;
create trigger subscriber_groups_a_member_of_delete after delete on subscriber_groups
  referencing old table as gone for each statement execute function subscriber_member_of_leave();

-- member_of computed from the memberships: run here for existing data, and by anyone who loaded rows with
-- triggers off (session_replication_role = replica, as the benches' seeding does)
create function subscriber_member_of_rebuild() returns void language plpgsql as $$
begin
  lock table subscribers, subscriber_groups in share mode;
  update subscribers s set member_of = m.ids
  from (select subscriber_id, array_agg(group_id order by group_id) as ids from subscriber_groups group by subscriber_id) m
  where s.id = m.subscriber_id and s.member_of is distinct from m.ids;
  update subscribers s set member_of = '{}'
  where s.member_of <> '{}' and not exists (select 1 from subscriber_groups sg where sg.subscriber_id = s.id);
end $$;
select subscriber_member_of_rebuild();
