// The automation pages' model: the wire shapes (declared in api/automations.ts), the builder's draft of a
// trigger and a step tree (strings while typing, a key per step for React), the conversions between
// them, and the words the pages use for triggers, steps and paths.
import { useQuery } from '@tanstack/react-query';
import { emptyDocument, writeDocument } from '../../editor/document.ts';
import {
  automationKeys,
  getAutomation,
  type Automation,
  type Filter,
  type Match,
  type RunStatus,
  type StepType,
  type Trigger,
  type TriggerType,
  type Unit,
  type Step,
} from '../../api/automations.ts';
import { campaignKeys, everyCampaign } from '../../api/campaigns.ts';
import { everyForm, formKeys } from '../../api/forms.ts';
import { everyGroup, groupKeys } from '../../api/groups.ts';
import { toRule, type RuleDraft, type WireRule as Rule } from '../segments/rules.ts';

export type {
  Automation,
  Filter,
  Match,
  Rule,
  Run,
  RunStatus,
  Stats,
  Step,
  StepEmails,
  StepType,
  Trigger,
  TriggerType,
  Unit,
} from '../../api/automations.ts';
export type { RuleDraft } from '../segments/rules.ts';

// ---- the builder's draft ----

export interface TriggerDraft {
  type: TriggerType;
  source: string;
  group_id: string;
  form_id: string;
  campaign_id: string;
  url: string;
  field: string;
}
export type StepDraft = { key: string } & (
  | { type: 'delay'; amount: string; unit: Unit }
  | {
      type: 'send_email';
      subject: string;
      content_html: string;
      from_name: string;
      from_email: string;
      content_format: 'html' | 'blocks';
      content_source: string;
    }
  | { type: 'add_to_group' | 'remove_from_group'; group_id: string }
  | { type: 'update_field'; field: string; value: string }
  // a filter with nested groups (made through the API) is kept as it is: `nested`
  | { type: 'condition'; match: Match; rules: RuleDraft[]; nested?: Filter; then: StepDraft[]; else: StepDraft[] }
);
export interface Draft {
  name: string;
  trigger: TriggerDraft;
  steps: StepDraft[];
}

let seq = 0;
export const newKey = () => `s${++seq}`;

export const TRIGGERS: { type: TriggerType; label: string }[] = [
  { type: 'subscriber_created', label: 'A subscriber is added' },
  { type: 'joined_group', label: 'A subscriber joins a group' },
  { type: 'form_submitted', label: 'A form is submitted' },
  { type: 'campaign_opened', label: 'A campaign email is opened' },
  { type: 'link_clicked', label: 'A link in a campaign email is clicked' },
  { type: 'date_anniversary', label: 'The anniversary of a date field' },
];
export const SOURCES = ['api', 'import', 'form', 'dashboard', 'mcp'] as const;

export const STEP_LABELS: Record<StepType, string> = {
  delay: 'Wait',
  send_email: 'Send email',
  add_to_group: 'Add to group',
  remove_from_group: 'Remove from group',
  update_field: 'Update field',
  condition: 'Condition',
};
export const STEP_TYPES = Object.keys(STEP_LABELS) as StepType[];

export const RUN_TONE: Record<RunStatus, 'neutral' | 'good' | 'bad' | 'warn'> = {
  active: 'warn',
  completed: 'good',
  canceled: 'neutral',
  failed: 'bad',
};

export interface Sender {
  from_name: string;
  from_email: string;
}

export function blankStep(type: StepType, sender: Sender): StepDraft {
  const key = newKey();
  switch (type) {
    case 'delay':
      return { key, type, amount: '1', unit: 'days' };
    case 'send_email':
      // the visual editor first, as for a new campaign; HTML is one switch away
      return {
        key,
        type,
        subject: '',
        content_html: '',
        content_format: 'blocks',
        content_source: writeDocument(emptyDocument()),
        ...sender,
      };
    case 'add_to_group':
    case 'remove_from_group':
      return { key, type, group_id: '' };
    case 'update_field':
      return { key, type, field: '', value: '' };
    case 'condition':
      return { key, type, match: 'all', rules: [], then: [], else: [] };
  }
}

const text = (v: unknown): string =>
  v === null || v === undefined ? '' : Array.isArray(v) ? v.map(text).join(', ') : String(v);

function ruleDrafts(filter: Filter): RuleDraft[] | undefined {
  const flat = filter.rules.every((r) => !('match' in r));
  return flat
    ? (filter.rules as Rule[]).map((r) => ({ field: r.field, operator: r.operator, value: text(r.value) }))
    : undefined;
}

export function stepDraft(s: Step): StepDraft {
  const key = newKey();
  switch (s.type) {
    case 'delay':
      return { key, type: s.type, amount: String(s.amount), unit: s.unit };
    case 'send_email':
      return {
        key,
        type: s.type,
        subject: s.subject,
        content_html: s.content_html ?? '',
        content_format: s.content_format ?? 'html',
        content_source: s.content_source ?? '',
        from_name: s.from_name ?? '',
        from_email: s.from_email ?? '',
      };
    case 'add_to_group':
    case 'remove_from_group':
      return { key, type: s.type, group_id: s.group_id };
    case 'update_field':
      return { key, type: s.type, field: s.field, value: text(s.value) };
    case 'condition': {
      const rules = ruleDrafts(s.filter);
      return {
        key,
        type: s.type,
        match: s.filter.match,
        rules: rules ?? [],
        ...(!rules && { nested: s.filter }),
        then: s.then.map(stepDraft),
        else: s.else.map(stepDraft),
      };
    }
  }
}

export function draftOf(a: Automation | undefined): Draft {
  const t = (a?.trigger ?? { type: 'form_submitted' }) as Partial<Record<keyof TriggerDraft, string>>;
  return {
    name: a?.name ?? '',
    trigger: {
      type: (t.type as TriggerType) ?? 'form_submitted',
      source: t.source ?? '',
      group_id: t.group_id ?? '',
      form_id: t.form_id ?? '',
      campaign_id: t.campaign_id ?? '',
      url: t.url ?? '',
      field: t.field ?? '',
    },
    steps: a?.steps.map(stepDraft) ?? [],
  };
}

export function triggerOf(t: TriggerDraft): Trigger {
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  switch (t.type) {
    case 'subscriber_created':
      return { type: t.type, source: opt(t.source) };
    case 'joined_group':
      return { type: t.type, group_id: t.group_id };
    case 'form_submitted':
      return { type: t.type, form_id: t.form_id };
    case 'campaign_opened':
      return { type: t.type, campaign_id: opt(t.campaign_id) };
    case 'link_clicked':
      return { type: t.type, campaign_id: opt(t.campaign_id), url: opt(t.url) };
    case 'date_anniversary':
      return { type: t.type, field: t.field };
  }
}

export const ruleOf = toRule;

/** The steps as the server takes them; `kindOf` tells how a condition's field compares. */
export function stepsOf(list: StepDraft[], kindOf: (field: string) => string): Step[] {
  return list.map((s): Step => {
    switch (s.type) {
      case 'delay':
        return { type: s.type, amount: Number(s.amount), unit: s.unit };
      case 'send_email':
        return {
          type: s.type,
          subject: s.subject,
          // a visual step sends its document; the server renders the HTML from it
          ...(s.content_format === 'blocks'
            ? { content_format: 'blocks' as const, content_source: s.content_source }
            : { content_html: s.content_html }),
          ...(s.from_name.trim() && { from_name: s.from_name.trim() }),
          ...(s.from_email.trim() && { from_email: s.from_email.trim() }),
        };
      case 'add_to_group':
      case 'remove_from_group':
        return { type: s.type, group_id: s.group_id };
      case 'update_field':
        return { type: s.type, field: s.field, value: s.value };
      case 'condition':
        return {
          type: s.type,
          filter: s.nested ?? { match: s.match, rules: s.rules.map((r) => ruleOf(r, kindOf(r.field))) },
          then: stepsOf(s.then, kindOf),
          else: stepsOf(s.else, kindOf),
        };
    }
  });
}

/** "0" → "Step 1"; "1.then.0" → "Step 2 › Then 1"; "1.else.2" → "Step 2 › Else 3". */
export function stepName(path: string): string {
  const parts = path.split('.');
  const words = [`Step ${Number(parts[0]) + 1}`];
  for (let i = 1; i + 1 < parts.length; i += 2)
    words.push(`${parts[i] === 'then' ? 'Then' : 'Else'} ${Number(parts[i + 1]) + 1}`);
  return words.join(' › ');
}

/** Names of the things a trigger can point at, for saying what it is in words. */
export interface Names {
  groups: Map<string, string>;
  forms: Map<string, string>;
  campaigns: Map<string, string>;
}

export function triggerText(t: Trigger, names: Names): string {
  const name = (m: Map<string, string>, id: string | undefined, any: string) =>
    id ? `“${m.get(id) ?? 'deleted'}”` : any;
  switch (t.type) {
    case 'subscriber_created':
      return t.source ? `Subscriber added (${t.source})` : 'Subscriber added';
    case 'joined_group':
      return `Joins group ${name(names.groups, t.group_id, '')}`;
    case 'form_submitted':
      return `Submits form ${name(names.forms, t.form_id, '')}`;
    case 'campaign_opened':
      return `Opens ${name(names.campaigns, t.campaign_id, 'any campaign')}`;
    case 'link_clicked':
      return `Clicks ${t.url ? t.url : 'a link'} in ${name(names.campaigns, t.campaign_id, 'any campaign')}`;
    case 'date_anniversary':
      return `Anniversary of ${t.field}`;
  }
}

// ---- queries the pages share ----

export const automationKey = automationKeys.one;

export function useAutomation(id: string | undefined) {
  return useQuery({
    queryKey: automationKey(id ?? ''),
    queryFn: () => getAutomation(id!),
    enabled: !!id,
    // runs move by themselves while it is on: its counters follow
    refetchInterval: (q) => (q.state.data?.enabled ? 5000 : false),
  });
}

/** Groups, forms and campaigns of the account (the first 100 of each), for pickers and names. */
export function usePickLists() {
  const groups = useQuery({
    queryKey: groupKeys.every,
    queryFn: everyGroup,
  });
  const forms = useQuery({
    queryKey: formKeys.every,
    queryFn: everyForm,
  });
  const campaigns = useQuery({
    queryKey: campaignKeys.every,
    queryFn: everyCampaign,
  });
  const byId = (rows: { id: string; name: string }[] | undefined) => new Map(rows?.map((r) => [r.id, r.name]));
  return {
    groups: groups.data?.groups ?? [],
    forms: forms.data?.forms ?? [],
    campaigns: campaigns.data?.campaigns ?? [],
    names: {
      groups: byId(groups.data?.groups),
      forms: byId(forms.data?.forms),
      campaigns: byId(campaigns.data?.campaigns),
    } satisfies Names,
  };
}
