-- Instances that run workers, each with a heartbeat, and which of them holds what. An instance whose
-- heartbeat is older than INSTANCE_TIMEOUT_MS is dead: every other instance's supervisor hands its work on
-- (src/jobs/supervisor.ts) — its pg-boss jobs (job_leases) and its leased automation runs and webhook
-- deliveries (locked_by). Rows leased by an older version (locked_by null) keep their time-based lease.
create table worker_instances (
  id         uuid primary key,
  host       text not null,
  pid        integer not null,
  started_at timestamptz not null default now(),
  last_seen  timestamptz not null default now()
);

-- one row per pg-boss job a handler is running now: which instance runs it
create table job_leases (
  job_id      uuid primary key,
  queue       text not null,
  instance_id uuid not null,
  started_at  timestamptz not null default now()
);
create index job_leases_instance on job_leases (instance_id);

alter table automation_runs add column locked_by uuid;
alter table webhook_deliveries add column locked_by uuid;
create index automation_runs_locked_by on automation_runs (locked_by) where locked_by is not null;
create index webhook_deliveries_locked_by on webhook_deliveries (locked_by) where locked_by is not null;
