// Work this process has finished that leaves nothing cheap to count at scrape time: every webhook attempt
// writes a row, but counting those rows by result on each scrape would read a table that only grows. The
// metrics endpoint reads these as counters; Prometheus sums them over the instances.
export type WebhookAttemptResult = 'delivered' | 'retrying' | 'failed';

const webhookAttempts: Record<WebhookAttemptResult, number> = { delivered: 0, retrying: 0, failed: 0 };

/** One webhook attempt ended: delivered, failed with a retry ahead, or failed for good. */
export function noteWebhookAttempt(result: WebhookAttemptResult): void {
  webhookAttempts[result] += 1;
}

export function webhookAttemptCounts(): Readonly<Record<WebhookAttemptResult, number>> {
  return webhookAttempts;
}
