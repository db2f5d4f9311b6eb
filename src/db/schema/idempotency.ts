// Kysely types of the Idempotency-Key store (migration 20261126_0950_idempotency_keys.sql).
import type { Timestamp } from './core.ts';

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  fingerprint: string;
  status: number | null;
  response: string | null;
  content_type: string | null;
  created_at: Timestamp;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
