-- Warm-up of a sending domain: a plan caps how many campaign messages of an account go out from one domain
-- a day (first_day_cap, multiplied by growth each day, no cap after `days` days); warmup_usage counts what
-- the send workers claimed per (account, domain, day), one increment per claimed batch, so a campaign held
-- back by the cap resumes the next day from the database alone, whatever restarted meanwhile.
create table warmup_plans (
  id              uuid primary key default gen_random_uuid(),
  account_id      uuid not null references accounts(id) on delete cascade,
  domain          text not null check (domain = lower(domain) and length(domain) between 1 and 253),
  start_date      date not null,
  first_day_cap   integer not null check (first_day_cap between 1 and 10000000),
  growth          double precision not null check (growth >= 1 and growth <= 10),
  days            integer not null check (days between 1 and 365),
  created_at      timestamptz not null default now(),
  unique (account_id, domain)
);

create table warmup_usage (
  account_id      uuid not null references accounts(id) on delete cascade,
  domain          text not null,
  day             date not null,
  claimed         integer not null default 0 check (claimed >= 0),
  primary key (account_id, domain, day)
);
