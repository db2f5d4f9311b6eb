// The CLI's management commands straight on the store, when no server holds it.
import type { Config } from '../config.ts';
import { openDb } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import * as accounts from '../domain/accounts/accounts.ts';
import * as apiKeys from '../domain/accounts/apiKeys.ts';
import * as totp from '../domain/accounts/totp.ts';
import * as users from '../domain/accounts/users.ts';
import type { Admin } from './admin.ts';

export async function directClient(config: Config): Promise<Admin & { close(): Promise<void> }> {
  const handle = await openDb({ url: config.DATABASE_URL, dataDir: config.MAILGROVE_DATA_DIR });
  await migrate(handle.db);
  const db = handle.db;
  return {
    createAccount: (input) => accounts.create(db, input, config.DEFAULT_SUBSCRIBER_LIMIT),
    listAccounts: () => accounts.list(db),
    async createKey(accountId, input) {
      await accounts.get(db, accountId);
      return apiKeys.create(db, accountId, input);
    },
    listKeys: (accountId) => apiKeys.list(db, accountId),
    revokeKey: (keyId) => apiKeys.revoke(db, null, keyId),
    setPassword: (input) => users.resetPassword(db, input),
    resetTwoFactor: (input) => totp.resetByOperator(db, input),
    close: () => handle.close(),
  };
}
