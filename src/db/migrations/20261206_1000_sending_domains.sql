-- Sending domains: a domain an account sends from, proven by a DKIM key of its own. Each row holds the
-- account's key for that domain (a selector chosen by the product, the public key it publishes, the private
-- key sealed under the instance secret) and the outcome of the last DNS check. Two accounts may add the
-- same domain: each proves it with its own key and selector, nothing is shared.
create table sending_domains (
  id               uuid primary key default gen_random_uuid(),
  account_id       uuid not null references accounts(id) on delete cascade,
  -- lower-case ASCII (an IDN is stored as punycode)
  domain           text not null check (domain = lower(domain) and length(domain) between 3 and 253),
  selector         text not null check (selector ~ '^[a-z0-9]{1,63}$'),
  -- base64 of the SubjectPublicKeyInfo, the p= of the DKIM record
  public_key       text not null,
  private_key_sealed text not null,
  status           text not null default 'pending' check (status in ('pending', 'verified', 'failed')),
  -- the last check: [{purpose, ok, found}]
  checks           jsonb not null default '[]'::jsonb,
  checked_at       timestamptz,
  verified_at      timestamptz,
  created_at       timestamptz not null default now(),
  unique (account_id, domain)
);

-- the daily re-check walks the domains checked longest ago
create index sending_domains_checked on sending_domains (checked_at nulls first);
