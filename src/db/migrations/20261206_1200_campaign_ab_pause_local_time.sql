-- Campaigns that learn: a sending campaign may be paused (no new messages until resumed), may test 2-5
-- variants on a share of its audience before the winner goes to the rest, may be a resend of an earlier
-- campaign to who did not open it, and may be delivered at a local hour in each subscriber's time zone.
alter table campaigns drop constraint campaigns_status_check;
alter table campaigns add constraint campaigns_status_check
  check (status in ('draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled'));
alter table campaigns drop constraint campaigns_delivery_check;
alter table campaigns add constraint campaigns_delivery_check check (delivery in ('instant', 'scheduled', 'local_time'));

alter table campaigns
  add column paused_at timestamptz,
  -- { variants: [{subject?, preview_text?, from_name?, content_format?, content_source?, content_html?}],
  --   test_percent, winner_by, wait_hours, seed }
  add column ab_test jsonb,
  add column ab_winner smallint,
  -- when the automatic winner is due (set when the test share starts sending); the scheduler decides it
  add column ab_decide_at timestamptz,
  add column resend_of uuid references campaigns (id) on delete set null,
  -- local-time delivery: the wall-clock hour and date, and what happens where that hour has passed
  add column local_time text,
  add column local_date date,
  add column local_time_past text check (local_time_past in ('send', 'skip'));

create index campaigns_ab_due on campaigns (ab_decide_at) where ab_winner is null and ab_decide_at is not null;

-- the A/B variant (index into ab_test.variants) this recipient is sent; null without a test
-- ab_rest: the row is not in the test share and waits (next_attempt_at 'infinity') for the winner
alter table campaign_recipients add column variant smallint, add column ab_rest boolean;

-- IANA zone name; null: the account's zone
alter table subscribers add column time_zone text;
