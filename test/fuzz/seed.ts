// The rows the edge fuzz suites aim at: two accounts with one of everything, so generated ids hit the
// caller's own rows, another account's rows (which must stay invisible) and unknown ones.
import { randomUUID } from 'node:crypto';
import * as webhooks from '../../src/domain/webhooks/webhooks.ts';
import { restClient, type TestServer } from '../support/server.ts';

export const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
export const RUNS = Number(process.env.FUZZ_RUNS ?? 15);
/** per property (a tool or a route): fast-check stops generating after this long and the test passes on what ran */
export const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_MS ?? 1000);

export async function seedAccounts(s: TestServer) {
  const mine = await s.newAccount();
  const theirs = await s.newAccount();
  const ids: string[] = [randomUUID(), mine.accountId, theirs.accountId];
  for (const a of [mine, theirs]) {
    const api = restClient(s.url, a.key);
    const made = async (path: string, body: unknown) => {
      const res = await api.post(path, body);
      if (res.body?.data?.id) ids.push(res.body.data.id);
      else throw new Error(`seeding ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body?.data?.id as string | undefined;
    };
    await api.post('/fields', { key: 'company' });
    const sub = await made('/subscribers', {
      email: `fuzz-${a.accountId.slice(0, 8)}@example.com`,
      fields: { company: 'Acme' },
    });
    const group = await made('/groups', { name: 'Fuzz group' });
    if (group && sub) await api.post(`/groups/${group}/subscribers/${sub}`, {});
    await made('/segments', {
      name: 'Fuzz segment',
      filter: { match: 'all', rules: [{ field: 'email', operator: 'contains', value: 'fuzz' }] },
    });
    await made('/campaigns', {
      name: 'Fuzz',
      subject: 'Hi {{ subscriber.email }}',
      from_name: 'A',
      from_email: 'a@example.com',
      content_html: '<p>Hi</p>',
      group_ids: group ? [group] : [],
    });
    await made('/forms', { name: 'Fuzz form', group_ids: group ? [group] : [] });
    // no DNS in tests: a loopback target, saved past the address rule that the fuzzing itself keeps on
    ids.push(
      (
        await webhooks.create(
          s.db,
          a.accountId,
          { url: 'http://127.0.0.1:9/hook', events: ['subscriber.created'] },
          { ALLOW_PRIVATE_WEBHOOK_URLS: true },
        )
      ).id,
    );
    await made('/automations', {
      name: 'Fuzz flow',
      trigger: { type: 'subscriber_created' },
      steps: [{ type: 'delay', amount: 1, unit: 'days' }],
    });
  }
  return { mine, theirs, ids };
}
