// What each webhook event type means, in one line, for people choosing which to receive (the dashboard's
// checklist). Keyed by the domain's own list, so a new event type does not compile until it is explained.
import { WEBHOOK_EVENTS } from './webhooks.ts';

type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const MEANING: Record<WebhookEvent, string> = {
  'subscriber.created': 'A subscriber was added (API, MCP, import, form or dashboard).',
  'subscriber.updated': "A subscriber's fields, status or custom fields changed.",
  'subscriber.unsubscribed': 'A subscriber unsubscribed (API or unsubscribe link).',
  'subscriber.deleted': 'A subscriber was deleted or forgotten.',
  'subscriber.added_to_group': 'A subscriber joined a group.',
  'subscriber.removed_from_group': 'A subscriber left a group.',
  'subscriber.bounced': 'A hard bounce marked a subscriber as bounced.',
  'subscriber.complained': 'A spam complaint marked a subscriber as complained.',
  'campaign.sent': 'A campaign finished sending.',
  'campaign.refused':
    'A scheduled campaign failed the checks before sending when its time came and went back to draft.',
  'email.sent': 'One campaign or automation email was accepted by the mail server.',
  'email.opened': 'An open of a campaign or automation email was tracked.',
  'email.clicked': 'A tracked link in a campaign or automation email was clicked.',
  'email.bounced': 'A provider reported a hard bounce of one email.',
  'form.submitted': 'A signup form was submitted.',
  'import.completed': 'An import job finished.',
  'automation.completed': "A subscriber's automation run finished.",
  'webhook.disabled': 'One of your webhooks was disabled after failing for 5 days.',
  '*': 'Every event, including types added later.',
};

export function eventCatalog(): { type: WebhookEvent; description: string }[] {
  return WEBHOOK_EVENTS.map((type) => ({ type, description: MEANING[type] }));
}
