// What domain tests without HTTP set up again and again: an account (in a time zone), a group of new
// subscribers, a config whose clock a test moves.
import { randomUUID } from 'node:crypto';
import type { Config } from '../../src/config.ts';
import type { Db } from '../../src/db/client.ts';
import * as accounts from '../../src/domain/accounts/accounts.ts';
import * as groups from '../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../src/domain/subscribers/subscribers.ts';

/** A new account of 100,000 subscribers' room; its time zone when given. */
export async function newAccount(db: Db, name: string, timezone?: string): Promise<string> {
  const id = (await accounts.create(db, { name }, 100_000)).id;
  if (timezone) await db.updateTable('accounts').set({ timezone }).where('id', '=', id).execute();
  return id;
}

/** A new group holding a new subscriber for each address; its id. */
export async function groupOf(db: Db, accountId: string, emails: string[]): Promise<string> {
  const g = await groups.create(db, accountId, { name: `G${randomUUID()}` });
  for (const email of emails) await subscribers.create(db, accountId, { email, group_ids: [g.id] });
  return g.id;
}

/** The config with a clock that reads `at` (moved by the test). */
export function clockAt(config: Config, at: Date) {
  const clock = { ...config, at, now: () => clock.at };
  return clock;
}
