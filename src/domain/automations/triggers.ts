// Starts automation runs: from the events log (one INSERT … SELECT per batch, matching every enabled
// automation's trigger at once), and from the daily date_anniversary scan. A run is unique per
// (automation, subscriber, trigger_event_id), so matching a batch twice starts nothing twice.
// trigger_event_id is the event's id, except where one run per subscriber is wanted for repeated events:
// campaign_opened (per campaign), link_clicked (per campaign and URL) and date_anniversary (per year)
// derive it from those, so a second open of the same campaign does not start the series again.
// campaign_opened and link_clicked match opens and clicks of CAMPAIGN emails only (events with a
// campaign_id): an automation's own emails are tracked too, but letting them start runs would let an
// automation feed itself (or two feed each other) from the very emails they send.
import type { Db } from '../../db/client.ts';
import { automationWanted, EventFeed, type FeedBatch } from '../events/feed.ts';
import { inTransaction } from '../transaction.ts';
import * as runQueries from './runQueries.ts';

/**
 * The trigger scan's reader of the events log. Triggers match on the seq range in SQL, so it reads seqs
 * only; events of accounts without an enabled automation are stepped over.
 */
export function eventFeed(): EventFeed {
  return new EventFeed('automations', 500, { seqsOnly: true, wanted: automationWanted });
}

/** One round of the trigger scan: the next batch of events, then today's anniversaries. */
export async function scan(db: Db, feed: EventFeed): Promise<{ handled: number; started: number }> {
  let started = 0;
  const handled = await feed.consume(db, async (trx, batch) => {
    started = await startFromEvents(trx, batch);
  });
  started += await scanAnniversaries(db);
  return { handled, started };
}

/** Starts a run for each (enabled automation, event of the batch) whose trigger matches. */
export function startFromEvents(trx: Db, batch: FeedBatch): Promise<number> {
  return runQueries.startRunsFromEvents(trx, batch);
}

/**
 * date_anniversary: once per account-local day and automation, starts a run for each subscriber whose
 * date field has today's month and day (29 February counts on 28 February in other years).
 * Returns how many runs started.
 */
export async function scanAnniversaries(db: Db): Promise<number> {
  let total = 0;
  for (const { id, today } of await runQueries.anniversariesDue(db))
    total += await inTransaction(db, (trx) => scanOne(trx, id, today));
  return total;
}

async function scanOne(trx: Db, automationId: string, today: string): Promise<number> {
  // claim today's scan first: a second instance scanning at the same moment finds scanned_on = today
  const claimed = await runQueries.claimAnniversaryScan(trx, automationId, today);
  if (!claimed) return 0;
  return runQueries.startAnniversaryRuns(trx, automationId, claimed, today);
}
