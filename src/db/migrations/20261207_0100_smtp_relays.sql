-- SMTP relays of an account: mail whose From domain is one of a relay's domains leaves through that relay
-- instead of the instance's SMTP_URL. The relay's URL, credentials included, is sealed under the instance
-- secret; host, port, TLS mode and whether it has credentials are kept in the clear for the listing.
create table smtp_relays (
  id              uuid primary key default gen_random_uuid(),
  account_id      uuid not null references accounts(id) on delete cascade,
  name            text not null check (length(name) between 1 and 100),
  host            text not null check (length(host) between 1 and 253),
  port            integer not null check (port between 1 and 65535),
  -- implicit TLS (smtps://); otherwise STARTTLS when the server offers it
  secure          boolean not null,
  has_credentials boolean not null,
  url_sealed      text not null,
  created_at      timestamptz not null default now()
);

create unique index smtp_relays_name on smtp_relays (account_id, lower(name));

-- the From domains a relay carries: one relay per domain within an account
create table smtp_relay_domains (
  account_id uuid not null references accounts(id) on delete cascade,
  domain     text not null check (domain = lower(domain) and length(domain) between 3 and 253),
  relay_id   uuid not null references smtp_relays(id) on delete cascade,
  primary key (account_id, domain)
);

create index smtp_relay_domains_relay on smtp_relay_domains (relay_id);
