// What every eraser is: forget_subscriber calls each one in its transaction with the subscriber being
// forgotten. A context that stores addresses implements it in <context>/eraser.ts; forget/erasers.ts lists them.
import type { Db } from '../db/client.ts';

export interface ForgetTarget {
  subscriberId: string;
  email: string;
}

export type Eraser = (trx: Db, accountId: string, target: ForgetTarget) => Promise<void>;
