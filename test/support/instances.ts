// Two real servers over one PostgreSQL schema, as two instances of a deployment: each with its own pool,
// sharing the tables and the job queue. Stopped and dropped when the scope ends.
import { loadConfig, type Env } from '../../src/config.ts';
import { openDb } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import * as accounts from '../../src/domain/accounts/accounts.ts';
import * as apiKeys from '../../src/domain/accounts/apiKeys.ts';
import { start, type Running } from '../../src/main.ts';
import { openTestDb } from './db.ts';
import type { Scope } from './scope.ts';
import { TEST_ENV } from './server.ts';

type EnvOf = Partial<Record<keyof Env, unknown>>;

export async function twoInstances(
  scope: Scope,
  envs: [EnvOf, EnvOf],
): Promise<{ instances: [Running, Running]; newKey(): Promise<string> }> {
  const first = await openTestDb();
  await migrate(first.handle.db);
  const second = await openDb({ url: first.url, schema: first.schema, poolSize: 3 });
  const config = (env: EnvOf) => loadConfig({ ...TEST_ENV, ...env }, {});
  const a = await start(config(envs[0]), { handle: first.handle, queueSchema: first.queueSchema });
  const b = await start(config(envs[1]), { handle: second, queueSchema: first.queueSchema });
  scope.after(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await second.close();
    await first.destroy();
  });
  return {
    instances: [a, b],
    async newKey() {
      const account = await accounts.create(first.handle.db, { name: 'Two instances' }, 1000);
      return (await apiKeys.create(first.handle.db, account.id, { name: 'k', scopes: ['*'] })).key;
    },
  };
}
