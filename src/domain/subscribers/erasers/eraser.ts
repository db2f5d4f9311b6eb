// What every eraser is: forget_subscriber calls each one in its transaction with the subscriber being
// forgotten. An area that stores addresses implements it; index.ts lists the implementations.
import type { Db } from '../../../db/client.ts';

export interface ForgetTarget {
  subscriberId: string;
  email: string;
}

export type Eraser = (trx: Db, accountId: string, target: ForgetTarget) => Promise<void>;
