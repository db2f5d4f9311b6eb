// Rendering a campaign for people to look at rather than for its audience: previews, the editor's live
// render and test sends. None of them carries tracking (the template is compiled without CompileTracking,
// so no pixel and no rewritten links) or a working unsubscribe link: a preview gets forwarded, and a
// click in it must neither count nor unsubscribe anyone.
import type { Db } from '../../db/client.ts';
import type { Account } from '../../db/schema.ts';
import { renderAccount } from '../accounts/profile.ts';
import type { MessageTemplate, RenderSubscriber, RenderedMessage } from '../../mail/render.ts';
import { NotFound } from '../errors.ts';
import * as queries from './queries.ts';
import { renderCheckedInPool, SAMPLE_SUBSCRIBER } from './templates.ts';

/** Where a preview's unsubscribe link points: nowhere. */
export const PREVIEW_LINK = '#';

const PLACEHOLDER: RenderSubscriber = SAMPLE_SUBSCRIBER;

/** The subscriber named by id or email (NotFound if neither matches), or a placeholder when none is named. */
export async function previewSubscriber(
  db: Db,
  accountId: string,
  by: { subscriber_id?: string; email?: string },
): Promise<RenderSubscriber> {
  if (!by.subscriber_id && !by.email) return PLACEHOLDER;
  const sub = await queries.findSubscriber(db, accountId, by);
  if (!sub) throw new NotFound('Subscriber not found');
  return sub;
}

/** The subscriber with this address if the account has one (their data fills the template), else a stand-in. */
export async function subscriberOrStandIn(db: Db, accountId: string, email: string): Promise<RenderSubscriber> {
  return (await queries.findSubscriber(db, accountId, { email })) ?? { ...PLACEHOLDER, email, first_name: null };
}

/** In the render pool (off the event loop): a preview compiles the whole document, which may be hostile. */
export async function renderPreview(
  t: MessageTemplate,
  subscriber: RenderSubscriber,
  campaign?: { id: string; name: string },
  account?: Pick<Account, 'name' | 'postal_address'>,
): Promise<RenderedMessage> {
  // a real subscriber's data can cross a render limit the sample did not: still a 400, never a 500
  return renderCheckedInPool(t, {
    subscriber: plain(subscriber),
    campaign,
    unsubscribeUrl: PREVIEW_LINK,
    ...(account && { account: renderAccount(account) }),
  });
}

// a subscriber as it crosses to a thread: a row may carry fields a clone cannot take or the render does not use
function plain(s: RenderSubscriber): RenderSubscriber {
  const { id, email, first_name, last_name, phone, status, custom_fields, created_at } = s;
  return { id, email, first_name, last_name, phone, status, custom_fields, created_at };
}
