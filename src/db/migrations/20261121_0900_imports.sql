-- Bulk imports: one row per job, its parts, and the staged CSV/MCP rows it works through.
-- Each part's cursor (import_parts.last_row) commits in the same transaction as the batch it covers, so a
-- restart resumes exactly where the last commit left off.
create table imports (
  id              uuid primary key default gen_random_uuid(),
  account_id      uuid not null references accounts (id) on delete cascade,
  -- 'staging' while the upload streams in (never shown); then the spec's processing → completed | failed
  status          text not null default 'staging' check (status in ('staging', 'processing', 'completed', 'failed')),
  source          text not null default 'api',
  file_name       text,
  group_ids       uuid[] not null default '{}',
  ignored_columns text[] not null default '{}',
  total_rows      int not null default 0,
  -- distinct new emails counted at the plan-limit check; what is not yet created stays reserved
  new_count       int not null default 0,
  last_row        int not null default 1,  -- row_no before the first data row (1: a CSV's header is row 1)
  end_row         int not null default 0,  -- row_no of the last staged row
  processed_rows  int not null default 0,
  created_count   int not null default 0,
  updated_count   int not null default 0,
  failed_count    int not null default 0,
  duplicate_count int not null default 0,
  errors          jsonb not null default '[]',  -- first 100 [{row, email, reason}]
  failure_reason  text,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now(),
  finished_at     timestamptz
);
create index imports_account_created on imports (account_id, created_at desc);
create index imports_running on imports (status) where status in ('staging', 'processing');

-- An import's rows split into consecutive ranges that runners work on independently (on PostgreSQL two
-- at once: one INSERT statement uses one core). A runner claims a part with FOR UPDATE SKIP LOCKED.
create table import_parts (
  import_id uuid not null references imports (id) on delete cascade,
  part      int not null,
  last_row  int not null,  -- cursor: this part's rows with row_no <= last_row are done
  end_row   int not null,  -- this part's last row_no
  primary key (import_id, part)
);

-- One row per data row of the file (row_no = its row in a spreadsheet: the header is row 1).
-- error: why the row cannot be imported (set while staging: bad email, field type); dup: a later row
-- has the same address (last row wins). Rows are deleted when their import ends.
create table import_rows (
  import_id     uuid not null references imports (id) on delete cascade,
  row_no        int not null,
  email         text,
  first_name    text,
  last_name     text,
  phone         text,
  custom_fields jsonb,
  error         text,
  dup           boolean not null default false,
  primary key (import_id, row_no)
);
