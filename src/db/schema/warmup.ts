// Kysely types of the warm-up tables (migration 20261126_0940_warmup.sql).
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from './core.ts';

/** a `date` column: read as 'YYYY-MM-DD' text (both drivers are told to keep dates as text), written as text */
export type DateColumn = ColumnType<string, string, string>;

export interface WarmupPlansTable {
  id: Generated<string>;
  account_id: string;
  /** lower-cased: plans match the sender's domain case-insensitively */
  domain: string;
  start_date: DateColumn;
  first_day_cap: number;
  growth: number;
  days: number;
  created_at: Timestamp;
}

export interface WarmupUsageTable {
  account_id: string;
  domain: string;
  day: DateColumn;
  claimed: Generated<number>;
}

export interface WarmupTables {
  warmup_plans: WarmupPlansTable;
  warmup_usage: WarmupUsageTable;
}

export type WarmupPlanRow = Selectable<WarmupPlansTable>;
