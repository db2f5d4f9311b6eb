-- A campaign's stats kept by the database in the transaction of every ledger write, so that reading them
-- (a campaign, the campaign list, the overview, a send's progress polled every second) sums a few rows
-- instead of aggregating every one of up to a million ledger rows (a second and more at that size, on
-- every poll of a campaign that sends).
--
-- As subscriber_counts: signed deltas, one row per (campaign, writing statement), a count being the sum
-- of its rows; concurrent writers (send workers of several instances, tracking hits, bounces) each insert
-- their own rows and never wait for a shared counter row. campaigns/countQueries.ts folds a campaign's rows
-- into one from time to time. A ledger row counts in each column as its expression below says; the
-- expressions are written once, here, and the DO block builds every function from them.
create table campaign_counts (
  account_id         uuid not null,
  campaign_id        uuid not null,
  recipients         bigint not null,
  sent               bigint not null,
  failed             bigint not null,
  skipped            bigint not null,
  interrupted        bigint not null,
  pending            bigint not null,
  opens              bigint not null,
  unique_opens       bigint not null,
  clicks             bigint not null,
  unique_clicks      bigint not null,
  unsubscribes       bigint not null,
  bounces            bigint not null,
  complaints         bigint not null,
  soft_bounces       bigint not null,
  machine_opens      bigint not null,
  unique_human_opens bigint not null
);
create index campaign_counts_campaign on campaign_counts (campaign_id);

do $migration$
declare
  -- column => what one ledger row adds to it. A click marks the email opened without adding to its opens
  -- (the pixel did not load), so a row counts at least one open once opened_at is set; a person opened it
  -- when an open was not a privacy proxy's (opens > machine_opens) or when they clicked.
  counted constant text[][] := array[
    ['recipients', '1'],
    ['sent', '(state = ''sent'')::int'],
    ['failed', '(state = ''failed'')::int'],
    ['skipped', '(state = ''skipped'')::int'],
    ['interrupted', '(state = ''interrupted'')::int'],
    ['pending', '(state in (''queued'', ''sending''))::int'],
    ['opens', 'greatest(opens, (opened_at is not null)::int)'],
    ['unique_opens', '(opened_at is not null)::int'],
    ['clicks', 'greatest(clicks, (clicked_at is not null)::int)'],
    ['unique_clicks', '(clicked_at is not null)::int'],
    ['unsubscribes', '(unsubscribed_at is not null)::int'],
    ['bounces', '(bounced_at is not null)::int'],
    ['complaints', '(complained_at is not null)::int'],
    ['soft_bounces', 'soft_bounces'],
    ['machine_opens', 'machine_opens'],
    ['unique_human_opens', '(opens > machine_opens or clicked_at is not null)::int']
  ];
  cols text := '';
  sums text := '';
  nonzero text := '';
  add_sql text;
  writes constant text[][] := array[
    ['campaign_counts_insert', 'select 1 as sign, * from added'],
    ['campaign_counts_delete', 'select -1 as sign, * from gone'],
    ['campaign_counts_update', 'select 1 as sign, * from new_rows union all select -1 as sign, * from old_rows']
  ];
  i int;
begin
  for i in 1 .. array_length(counted, 1) loop
    cols := cols || ', ' || counted[i][1];
    sums := sums || format(', sum(sign * %s)', counted[i][2]);
    nonzero := nonzero || case when i > 1 then ' or ' else '' end || format('sum(sign * %s) <> 0', counted[i][2]);
  end loop;

  -- add_sql takes, for its %s, a query of (sign, ledger row...) pairs, and adds their sums, one row per campaign,
  -- unless nothing changed (a row marked 'sending' is still pending). The cascade of a deleted campaign
  -- (or account) deletes its ledger rows too: the exists skips those, and the campaigns trigger below
  -- drops the campaign's own rows.
  add_sql := format('insert into campaign_counts (account_id, campaign_id%s)
    select account_id, campaign_id%s from (%%s) d
    group by account_id, campaign_id
    having (%s) and exists (select 1 from campaigns c where c.id = d.campaign_id)', cols, sums, nonzero);

  -- one trigger function per kind of ledger write, each with the rows it adds (+1) and takes away (-1)
  for i in 1 .. array_length(writes, 1) loop
    execute format($f$
      create function %I() returns trigger language plpgsql as $b$
      begin
        %s;
        return null;
      end $b$$f$, writes[i][1], format(add_sql, writes[i][2]));
  end loop;

  -- the counts computed from the ledger itself: run here for existing data, by anyone who loaded ledger
  -- rows with triggers off (session_replication_role = replica, as the benches' seeding does), and by the
  -- tests that check the kept counts against the ledger
  execute format($f$
    create function campaign_counts_rebuild() returns void language plpgsql as $b$
    begin
      lock table campaign_recipients in share mode;
      delete from campaign_counts;
      %s;
    end $b$$f$, format(add_sql, 'select 1 as sign, * from campaign_recipients'));
  execute format($f$
    create function campaign_counts_of_ledger(campaign uuid) returns setof campaign_counts language sql stable as $b$
      select account_id, campaign_id%s from (select 1 as sign, * from campaign_recipients where campaign_id = campaign) d
      group by account_id, campaign_id
    $b$$f$, sums);
end
$migration$;

create trigger campaign_recipients_count_insert after insert on campaign_recipients
  referencing new table as added for each statement execute function campaign_counts_insert();
create trigger campaign_recipients_count_delete after delete on campaign_recipients
  referencing old table as gone for each statement execute function campaign_counts_delete();
create trigger campaign_recipients_count_update after update on campaign_recipients
  referencing old table as old_rows new table as new_rows for each statement execute function campaign_counts_update();

create function campaign_counts_forget() returns trigger language plpgsql as $$
begin
  delete from campaign_counts c using gone g where c.campaign_id = g.id;
  return null;
end $$;
create trigger campaigns_forget_counts after delete on campaigns
  referencing old table as gone for each statement execute function campaign_counts_forget();

select campaign_counts_rebuild();
