// The supervisor and the queue's job leases: a job whose instance stopped heartbeating goes back to the
// queue and runs on a live instance, the presumed-dead handler finding its lease gone leaves the job alone;
// a handler that hands its job back (JobReleased) lets another instance take it at once. Two queues on one
// database stand for two instances (on PGlite, in one process).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import type { WorkerContext } from '../../src/jobs/context.ts';
import { JobReleased, Queue } from '../../src/jobs/queue.ts';
import * as supervisor from '../../src/jobs/supervisor.ts';
import type { MailTransport } from '../../src/mail/transport.ts';
import { migratedDb } from '../support/db.ts';
import { TEST_ENV } from '../support/server.ts';
import { until } from '../support/until.ts';

const t = await migratedDb();
const queues: Queue[] = [];
const newQueue = async (id = randomUUID()) => {
  const q = new Queue(t.handle, 0.2, t.queueSchema, id);
  await q.start();
  queues.push(q);
  return q;
};
after(async () => {
  for (const q of queues) await q.stop();
});
const silent = { error() {}, warn() {}, info() {} } as unknown as WorkerContext['log'];
const startSupervisor = (queue: Queue) =>
  supervisor.register({
    db: t.db,
    handle: t.handle,
    queue,
    config: loadConfig({ ...TEST_ENV, INSTANCE_HEARTBEAT_MS: 100, INSTANCE_TIMEOUT_MS: 1000 }, {}),
    transport: {} as MailTransport,
    log: silent,
    pacing: {} as WorkerContext['pacing'],
  });
const leaseOf = async (jobId: string) =>
  (await sql<{ instance_id: string }>`select instance_id from job_leases where job_id = ${jobId}::uuid`.execute(t.db))
    .rows[0]?.instance_id;

test('a job whose instance stopped heartbeating runs again on a live instance, once', async () => {
  const deadId = randomUUID();
  const dead = await newQueue(deadId);
  // the dead instance: on record, silent for an hour, its handler stuck on the job
  await sql`insert into worker_instances (id, host, pid, last_seen) values (${deadId}::uuid, 'gone', 1, now() - interval '1 hour')`.execute(
    t.db,
  );
  let unstick = () => {};
  const stuck = new Promise<void>((r) => (unstick = r));
  const deadRuns: string[] = [];
  const stopDead = await dead.work<{ n: number }>('supervised', async (_data, job) => {
    deadRuns.push(job.id);
    await stuck;
  });
  const jobId = (await dead.send('supervised', { n: 1 }))!;
  await until('the dead instance holds the job', async () => (await leaseOf(jobId)) === deadId);

  const live = await newQueue();
  const liveRuns: string[] = [];
  const stopLive = await live.work<{ n: number }>('supervised', async (_data, job) => void liveRuns.push(job.id));
  const stopSupervisor = await startSupervisor(live);
  await until('the live instance ran the job', () => liveRuns.includes(jobId), 10_000);
  await until('its lease is dropped', async () => (await leaseOf(jobId)) === undefined);

  unstick(); // the presumed-dead handler ends: its lease is gone, so it settles nothing
  await stopDead();
  assert.deepEqual([deadRuns, liveRuns], [[jobId], [jobId]]);
  const { rows } = await sql<{
    state: string;
  }>`select state from ${sql.table(`${t.queueSchema ?? 'pgboss'}.job`)} where id = ${jobId}::uuid`.execute(t.db);
  assert.equal(rows[0]?.state, 'completed');
  await stopLive();
  await stopSupervisor();
});

test('a handler that hands its job back (JobReleased) lets another instance take it at once', async () => {
  const first = await newQueue();
  const second = await newQueue();
  const runs: string[] = [];
  const stopFirst = await first.work<{ n: number }>('handed', async () => {
    runs.push('first');
    throw new JobReleased('stopping');
  });
  const jobId = (await first.send('handed', { n: 1 }))!;
  await until('the first instance took it', () => runs.length > 0);
  await stopFirst();
  const started = Date.now();
  const stopSecond = await second.work<{ n: number }>('handed', async () => void runs.push('second'));
  await until('the second instance ran it', () => runs.includes('second'), 10_000);
  // a failed job would wait for its retry's backoff (2 s and more); a handed-back one is fetched at the next poll
  assert.ok(Date.now() - started < 1500, `taken after ${Date.now() - started} ms`);
  assert.equal(runs[0], 'first');
  await until('its lease is dropped', async () => (await leaseOf(jobId)) === undefined);
  await stopSecond();
});
