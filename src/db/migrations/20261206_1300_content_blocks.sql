-- Block documents: content_format 'blocks' keeps the editor's JSON document in content_source and the
-- HTML rendered from it in content_html (rendered on save, never at send).
alter table campaigns drop constraint if exists campaigns_content_format_check;
alter table campaigns
  add constraint campaigns_content_format_check check (content_format in ('html', 'mjml', 'blocks'));

-- Images an account uploads for its emails, kept in the database so every instance (and PGlite) serves
-- them from the same place. Only the bytes of PNG, JPEG, GIF and WebP files are accepted (judged by content).
create table images (
  id           uuid primary key default gen_random_uuid(),
  account_id   uuid not null references accounts (id) on delete cascade,
  content_type text not null check (content_type in ('image/png', 'image/jpeg', 'image/gif', 'image/webp')),
  width        int not null check (width > 0),
  height       int not null check (height > 0),
  size         int not null check (size > 0),
  sha256       text not null,
  filename     text,
  data         bytea not null,
  created_at   timestamptz not null default now()
);
create index images_account_created on images (account_id, created_at desc, id);

-- Block documents an account saved as templates, for campaigns, automation emails or confirmation mails.
create table content_templates (
  id         uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  name       text not null,
  kind       text not null default 'campaign' check (kind in ('campaign', 'automation', 'confirmation')),
  document   text not null,
  created_at timestamptz not null default now()
);
create index content_templates_account on content_templates (account_id, created_at desc);
