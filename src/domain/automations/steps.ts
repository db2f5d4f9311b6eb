// What an automation is made of: its trigger and its tree of steps, as zod schemas; the
// checks that need the account's data (groups, forms, campaigns, fields, templates, segment filters);
// and step paths ("0", "2.then.1") that say where a run stands in the tree.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { checkInPool } from '../campaigns/templates.ts';
import { Validation, type FieldErrors } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import { SegmentFilter, validateFor, type Filter } from '../segments/filter.ts';
import { Email, SubscriberUpdate } from '../subscribers/subscribers.ts';
import { int4, parseInput } from '../validation.ts';
import { existsInAccount } from './queries.ts';
import { ContentFields, sourceText, toHtml, type ContentFormat } from '../campaigns/content.ts';

const guid = (what: string) => z.guid(`${what} must be a UUID`);
export const SOURCES = ['api', 'import', 'form', 'dashboard', 'mcp'] as const;

export const Trigger = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('subscriber_created'),
      source: z.enum(SOURCES, { error: `source must be one of: ${SOURCES.join(', ')}` }).optional(),
    }),
    z.object({ type: z.literal('joined_group'), group_id: guid('group_id') }),
    z.object({ type: z.literal('form_submitted'), form_id: guid('form_id') }),
    z.object({ type: z.literal('campaign_opened'), campaign_id: guid('campaign_id').optional() }),
    z.object({
      type: z.literal('link_clicked'),
      campaign_id: guid('campaign_id').optional(),
      url: z.string().trim().min(1).max(2048).optional(),
    }),
    z.object({ type: z.literal('date_anniversary'), field: z.string().trim().min(1, 'field is required').max(255) }),
  ],
  {
    error:
      'Trigger type must be one of: subscriber_created, joined_group, form_submitted, campaign_opened, link_clicked, date_anniversary',
  },
);
export type Trigger = z.output<typeof Trigger>;

export const UNITS = ['minutes', 'hours', 'days'] as const;
const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

export type Step =
  | { type: 'delay'; amount: number; unit: (typeof UNITS)[number] }
  | {
      type: 'send_email';
      subject: string;
      /** what is sent: written directly, or rendered from content_source on save */
      content_html: string;
      content_format?: ContentFormat;
      content_source?: string;
      from_name?: string;
      from_email?: string;
    }
  | { type: 'add_to_group' | 'remove_from_group'; group_id: string }
  | { type: 'update_field'; field: string; value: string | number | boolean | null }
  | { type: 'condition'; filter: Filter; then: Step[]; else: Step[] };

const StepShape: z.ZodType<Step> = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('delay'),
      amount: int4({ min: 1, max: 100_000 }),
      unit: z.enum(UNITS, { error: 'unit must be one of: minutes, hours, days' }),
    }),
    z
      .object({
        type: z.literal('send_email'),
        subject: z.string({ error: 'subject is required' }).trim().min(1, 'subject is required').max(998),
        // either the HTML itself, or a source (HTML, MJML or a block document) it is rendered from on save
        content_html: z.string().min(1, 'content_html is required').max(1_000_000).optional(),
        ...ContentFields,
        from_name: z.string().trim().max(255).optional(),
        from_email: Email.optional(),
      })
      .refine((s) => s.content_html !== undefined || (s.content_source !== undefined && s.content_source !== null), {
        message: 'content_html is required',
        path: ['content_html'],
      })
      .transform((s) => {
        const { content_format, content_source, ...rest } = s;
        return {
          ...rest,
          content_html: s.content_html ?? '',
          ...(content_source != null && {
            content_format: content_format ?? 'html',
            content_source: sourceText(content_source)!,
          }),
        };
      }),
    z.object({ type: z.literal('add_to_group'), group_id: guid('group_id') }),
    z.object({ type: z.literal('remove_from_group'), group_id: guid('group_id') }),
    z.object({
      type: z.literal('update_field'),
      field: z.string({ error: 'field is required' }).trim().min(1, 'field is required').max(255),
      value: z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()], {
        error: 'value must be a string, number, boolean or null',
      }),
    }),
    z.object({
      type: z.literal('condition'),
      filter: SegmentFilter,
      get then() {
        return z.array(StepShape).max(MAX_STEPS).default([]);
      },
      get else() {
        return z.array(StepShape).max(MAX_STEPS).default([]);
      },
    }),
  ],
  { error: 'Step type must be one of: delay, send_email, add_to_group, remove_from_group, update_field, condition' },
) as z.ZodType<Step>;

export const MAX_STEPS = 100;
const MAX_DEPTH = 5;

export const Steps = z
  .array(StepShape, { error: 'steps must be a list of steps' })
  .min(1, 'At least one step is required')
  .max(MAX_STEPS)
  .superRefine((steps, ctx) => {
    let count = 0;
    const walk = (list: Step[], depth: number) => {
      for (const s of list) {
        count++;
        if (s.type !== 'condition') continue;
        if (depth >= MAX_DEPTH)
          ctx.addIssue({ code: 'custom', message: `Conditions may be nested at most ${MAX_DEPTH} deep` });
        else walk([...s.then, ...s.else], depth + 1);
      }
    };
    walk(steps, 1);
    if (count > MAX_STEPS) ctx.addIssue({ code: 'custom', message: `An automation has at most ${MAX_STEPS} steps` });
  });

export function delayMs(step: { amount: number; unit: keyof typeof UNIT_MS }, timeScale: number): number {
  return (step.amount * UNIT_MS[step.unit]) / timeScale;
}

const CORE_FIELDS = ['first_name', 'last_name', 'phone'] as const;

/**
 * Checks the parts that name the account's data and returns the definition as stored: filters
 * normalised by the segment compiler, update_field values coerced to their field's type.
 * Throws one Validation naming every problem by path (trigger.group_id, steps.1.then.0.subject, …).
 */
export async function checkDefinition(
  db: Db,
  accountId: string,
  trigger: Trigger | undefined,
  steps: Step[] | undefined,
): Promise<{ trigger?: Trigger; steps?: Step[] }> {
  const errors: FieldErrors = {};
  const problem = (path: string, message: string) => void (errors[path] ??= []).push(message);
  const defs = await fields.definitions(db, accountId);
  const exists = (table: 'groups' | 'forms' | 'campaigns', id: string) => existsInAccount(db, table, accountId, id);

  if (trigger?.type === 'joined_group' && !(await exists('groups', trigger.group_id)))
    problem('trigger.group_id', 'Group not found');
  if (trigger?.type === 'form_submitted' && !(await exists('forms', trigger.form_id)))
    problem('trigger.form_id', 'Form not found');
  if (
    (trigger?.type === 'campaign_opened' || trigger?.type === 'link_clicked') &&
    trigger.campaign_id &&
    !(await exists('campaigns', trigger.campaign_id))
  )
    problem('trigger.campaign_id', 'Campaign not found');
  if (trigger?.type === 'date_anniversary') {
    const key = trigger.field.replace(/^custom_fields\./, '');
    if (defs.get(key) !== 'date')
      problem('trigger.field', defs.has(key) ? 'Must be a custom field of type date' : `Unknown custom field: ${key}`);
    else trigger = { ...trigger, field: key };
  }

  const checkList = async (list: Step[], prefix: string): Promise<Step[]> => {
    const out: Step[] = [];
    for (const [i, s] of list.entries()) {
      const p = `${prefix}.${i}`;
      if ((s.type === 'add_to_group' || s.type === 'remove_from_group') && !(await exists('groups', s.group_id)))
        problem(`${p}.group_id`, 'Group not found');
      // joining the trigger's own group would start this automation again for every run, without end
      if (
        s.type === 'add_to_group' &&
        trigger?.type === 'joined_group' &&
        trigger.group_id.toLowerCase() === s.group_id.toLowerCase()
      )
        problem(`${p}.group_id`, 'A step may not add to the group that triggers this automation');
      if (s.type === 'send_email') {
        try {
          // a source is rendered here, on save, like a campaign's: the run sends content_html as stored
          if (s.content_source !== undefined) {
            const content_html = await toHtml(s.content_format ?? 'html', s.content_source);
            if (!content_html?.trim()) throw Validation.field('content_source', 'content_source is empty');
            await checkInPool({ subject: s.subject, html: content_html });
            out.push({ ...s, content_html });
            continue;
          }
          await checkInPool({ subject: s.subject, html: s.content_html });
        } catch (err) {
          if (!(err instanceof Validation)) throw err;
          const fromSource = s.content_source !== undefined;
          for (const [f, messages] of Object.entries(err.fields))
            for (const m of messages) problem(`${p}.${fromSource && f === 'content_html' ? 'content_source' : f}`, m);
        }
      }
      if (s.type === 'update_field') {
        const v = checkFieldValue(defs, s.field, s.value);
        if ('error' in v) problem(`${p}.${v.path}`, v.error);
        else {
          out.push({ ...s, field: v.field, value: v.value });
          continue;
        }
      }
      if (s.type === 'condition') {
        let filter = s.filter;
        try {
          filter = await validateFor(db, accountId, s.filter, `${p}.filter.`);
        } catch (err) {
          if (!(err instanceof Validation)) throw err;
          Object.assign(errors, err.fields);
        }
        out.push({
          ...s,
          filter,
          then: await checkList(s.then, `${p}.then`),
          else: await checkList(s.else, `${p}.else`),
        });
        continue;
      }
      out.push(s);
    }
    return out;
  };
  const checkedSteps = steps && (await checkList(steps, 'steps'));

  if (Object.keys(errors).length > 0) throw Validation.of(errors);
  return { trigger, steps: checkedSteps };
}

type FieldValue = string | number | boolean | null;

/** update_field: a core field (first_name, last_name, phone) or a custom field, with the value coerced. */
function checkFieldValue(
  defs: Map<string, fields.FieldType>,
  field: string,
  value: unknown,
): { field: string; value: FieldValue } | { path: string; error: string } {
  if ((CORE_FIELDS as readonly string[]).includes(field)) {
    try {
      // the same rules as updating the subscriber through the API
      const parsed = parseInput(SubscriberUpdate, { [field]: value }) as Record<string, FieldValue | undefined>;
      return { field, value: parsed[field] ?? null };
    } catch (err) {
      if (err instanceof Validation) return { path: 'value', error: Object.values(err.fields)[0]![0]! };
      throw err;
    }
  }
  const key = field.replace(/^custom_fields\./, '');
  const type = defs.get(key);
  if (!type)
    return { path: 'field', error: `field must be first_name, last_name, phone or a custom field (unknown: ${key})` };
  const coerced = fields.coerceValue(type, value);
  if (coerced === undefined) return { path: 'value', error: `Must be a valid ${type} for ${key}` };
  return { field: `custom_fields.${key}`, value: coerced };
}

// ---- step paths: "2" is steps[2]; "2.then.0" is the first step of steps[2]'s then-branch ----

type Branch = 'then' | 'else';

function parsePath(path: string): { list: (string | number)[]; index: number } {
  const parts = path.split('.');
  return { list: parts.slice(0, -1).map((p) => (/^\d+$/.test(p) ? Number(p) : p)), index: Number(parts.at(-1)) };
}

function listAt(steps: Step[], list: (string | number)[]): Step[] | undefined {
  let cur: Step[] | undefined = steps;
  for (let i = 0; i < list.length; i += 2) {
    const s: Step | undefined = cur?.[list[i] as number];
    if (!s || s.type !== 'condition') return undefined;
    cur = s[list[i + 1] as Branch];
  }
  return cur;
}

export function stepAt(steps: Step[], path: string): Step | undefined {
  const { list, index } = parsePath(path);
  return listAt(steps, list)?.[index];
}

/** The step after `path` once it is done: the next in its list, else the step after the enclosing condition. */
export function nextPath(steps: Step[], path: string): string | null {
  const { list, index } = parsePath(path);
  const here = listAt(steps, list);
  if (here && index + 1 < here.length) return [...list, index + 1].join('.');
  if (list.length === 0) return null;
  return nextPath(steps, list.slice(0, -1).join('.'));
}

/** Where a condition at `path` continues: the first step of the chosen branch, or past it when empty. */
export function branchPath(steps: Step[], path: string, branch: Branch): string | null {
  const s = stepAt(steps, path);
  if (s?.type === 'condition' && s[branch].length > 0) return `${path}.${branch}.0`;
  return nextPath(steps, path);
}
