// A job sent through an instance that works its queue starts at once, not at the next poll; a job to run
// later does not wake anyone.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Queue } from '../../src/jobs/queue.ts';
import { migratedDb } from '../support/db.ts';

const t = await migratedDb();
// a poll interval no test waits for: only a wake-up starts the job in time
const queue = new Queue(t.handle, 60, t.queueSchema);
await queue.start();
after(() => queue.stop());

test('a job sent here starts without waiting for the next poll', async () => {
  const ran: number[] = [];
  let done = () => {};
  const finished = new Promise<void>((r) => (done = r));
  const stop = await queue.work<{ n: number }>('woken', async ({ n }) => {
    ran.push(n);
    done();
  });
  try {
    await new Promise((r) => setTimeout(r, 200)); // the loop's first round found nothing and sleeps
    await queue.send('woken', { n: 1 });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('not started in 5 s')), 5_000)));
    await Promise.race([finished, late]).finally(() => clearTimeout(timer));
    assert.deepEqual(ran, [1]);
  } finally {
    await stop();
  }
});

test('a job to run later leaves the loops asleep', async () => {
  const ran: number[] = [];
  const stop = await queue.work<{ n: number }>('later', async ({ n }) => void ran.push(n));
  try {
    await new Promise((r) => setTimeout(r, 200));
    await queue.send('later', { n: 2 }, { startAfter: 1 });
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(ran, []);
  } finally {
    await stop();
  }
});
