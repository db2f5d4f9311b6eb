// Resend to non-openers: a sent campaign's follow-up, a new draft with its content whose audience, frozen
// when it starts, is who the campaign reached and did not open as a person (ledgerQueries
// .freezeResendAudience). It is scheduled like any campaign.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { StateConflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import * as campaigns from './campaigns.ts';
import * as queries from './queries.ts';

export const ResendInput = z.object({
  subject: z.string().trim().min(1, 'subject must not be empty').max(255).optional(),
  name: campaigns.Name.optional(),
});
export type ResendInput = z.input<typeof ResendInput>;

export async function resend(db: Db, accountId: string, id: string, input: unknown): Promise<campaigns.Campaign> {
  const r = parseInput(ResendInput, input);
  const c = await campaigns.find(db, accountId, id);
  if (c.status !== 'sent') throw new StateConflict('Only sent campaigns can be resent to non-openers');
  const row = await queries.insertCampaign(db, {
    account_id: accountId,
    name: r.name ?? `${c.name} (to non-openers)`.slice(0, 255),
    subject: r.subject ?? c.subject,
    preview_text: c.preview_text,
    from_name: c.from_name,
    from_email: c.from_email,
    reply_to: c.reply_to,
    content_html: c.content_html,
    content_text: c.content_text,
    content_format: c.content_format,
    content_source: c.content_source,
    group_ids: c.group_ids,
    segment_ids: c.segment_ids,
    delivery: null,
    resend_of: c.id,
  });
  return campaigns.get(db, accountId, row.id);
}
