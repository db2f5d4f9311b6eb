-- The per-key request counts are written once per API request, every request of one key on the same row.
-- Logged, each of those commits waited for its WAL flush while holding the row, which capped one key at
-- about 600 requests a second on the bench machine (docs/performance.md). The counts only matter for the
-- current minute: unlogged, a commit no longer waits for the disk, and a crash (or a failover to a
-- standby, which does not get unlogged tables) starts every key's minute afresh.
alter table rate_limits set unlogged;
