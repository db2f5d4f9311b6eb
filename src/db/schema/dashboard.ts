// Kysely types of the dashboard tables (migration 20261121_0960_dashboard.sql).
import type { Generated } from 'kysely';
import type { Timestamp } from './core.ts';

export interface SessionsTable {
  id: Generated<string>;
  token_hash: string;
  user_id: string;
  account_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface DashboardTables {
  sessions: SessionsTable;
}
