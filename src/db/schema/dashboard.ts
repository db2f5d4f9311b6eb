// Kysely types of the dashboard tables (migrations 20261121_0960_dashboard.sql, 20261207_0600_team_sign_in.sql).
import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './core.ts';

export interface SessionsTable {
  id: Generated<string>;
  token_hash: string;
  user_id: string;
  account_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  user_agent: string | null;
  ip: string | null;
}

export interface InvitationsTable {
  id: Generated<string>;
  account_id: string;
  email: string;
  name: string | null;
  role: 'admin' | 'editor' | 'viewer';
  token_hash: string;
  invited_by: string | null;
  created_at: Timestamp;
  sent_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
}

export interface PasswordResetsTable {
  id: Generated<string>;
  user_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: NullableTimestamp;
}

export interface SignInChallengesTable {
  token_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface DashboardTables {
  sessions: SessionsTable;
  invitations: InvitationsTable;
  password_resets: PasswordResetsTable;
  recovery_codes: RecoveryCodesTable;
  sign_in_challenges: SignInChallengesTable;
}
