-- Evidence behind a campaign's open and click figures.
--
-- machine_opens: pixel loads of the email that a privacy proxy fetched (Apple Mail Privacy Protection
-- loads every image when the message arrives, whether or not anyone reads it). They stay in opens, as
-- before, so the existing counts keep their meaning; an email counts as opened by a person when it has an
-- open that was not a machine's (opens > machine_opens) or a click.
alter table campaign_recipients add column machine_opens int not null default 0;

-- Who clicked which link of a campaign: one row per (campaign, link, subscriber) with the number of clicks,
-- written by the click redirect in the transaction that counts the click on the ledger row. link_idx is
-- the index of campaign_links that the click token carries. Deleting a subscriber removes their rows
-- (engagement history goes with the subscriber).
create table campaign_link_clicks (
  campaign_id      uuid not null references campaigns (id) on delete cascade,
  link_idx         int not null,
  subscriber_id    uuid not null references subscribers (id) on delete cascade,
  account_id       uuid not null references accounts (id) on delete cascade,
  clicks           int not null default 1,
  first_clicked_at timestamptz not null default now(),
  last_clicked_at  timestamptz not null default now(),
  primary key (campaign_id, link_idx, subscriber_id)
);
create index campaign_link_clicks_subscriber on campaign_link_clicks (subscriber_id);
-- a link's clicker list pages in first-click order
create index campaign_link_clicks_first on campaign_link_clicks (campaign_id, link_idx, first_clicked_at, subscriber_id);

-- clicks recorded before this table existed are in the event log (email.clicked carries the campaign id
-- and the stored URL, which names exactly one link of the campaign)
insert into campaign_link_clicks (campaign_id, link_idx, subscriber_id, account_id, clicks, first_clicked_at, last_clicked_at)
select l.campaign_id, l.idx, e.subscriber_id, e.account_id, count(*)::int, min(e.created_at), max(e.created_at)
from events e
join campaign_links l on l.campaign_id::text = e.data ->> 'campaign_id' and l.url = e.data ->> 'url'
join campaigns c on c.id = l.campaign_id and c.account_id = e.account_id
where e.type = 'email.clicked' and e.subscriber_id is not null
group by l.campaign_id, l.idx, e.subscriber_id, e.account_id
on conflict do nothing;
