// The merge tags the editor's picker offers: every field a template can use — the subscriber's own
// fields, each custom field of the account, the campaign, the account and the unsubscribe link — each
// with the Liquid it inserts. Text fields get a fallback (`| default: "there"`), so a subscriber without
// a first name reads "Hi there", not "Hi ,".
import type { Db } from '../../db/client.ts';
import * as fields from '../subscribers/fields.ts';

export interface MergeTag {
  /** what the picker shows */
  label: string;
  /** the variable, e.g. subscriber.custom_fields.city */
  path: string;
  /** what is inserted: the variable in Liquid with its fallback */
  insert: string;
  group: 'Subscriber' | 'Custom fields' | 'Campaign' | 'Account' | 'Links';
}

const tag = (group: MergeTag['group'], label: string, path: string, fallback?: string): MergeTag => ({
  label,
  path,
  group,
  insert: fallback === undefined ? `{{ ${path} }}` : `{{ ${path} | default: "${fallback}" }}`,
});

export async function mergeTags(db: Db, accountId: string): Promise<MergeTag[]> {
  const custom = await fields.list(db, accountId);
  return [
    tag('Subscriber', 'First name', 'subscriber.first_name', 'there'),
    tag('Subscriber', 'Last name', 'subscriber.last_name'),
    tag('Subscriber', 'Email', 'subscriber.email'),
    tag('Subscriber', 'Phone', 'subscriber.phone'),
    ...custom.map((f) => tag('Custom fields', f.name, `subscriber.custom_fields.${f.key}`)),
    tag('Campaign', 'Campaign name', 'campaign.name'),
    tag('Account', 'Account name', 'account.name'),
    tag('Account', 'Postal address', 'account.postal_address'),
    tag('Links', 'Unsubscribe link', 'unsubscribe_url'),
  ];
}
