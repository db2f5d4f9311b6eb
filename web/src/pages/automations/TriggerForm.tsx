// What starts a run: one of the domain's trigger types, with what it needs (a group, a form, a campaign
// and a URL, a date field or where a subscriber came from). Each field shows the server's message for
// its path ("trigger.group_id: Group not found").
import { Field } from '../../ui.tsx';
import { errorAt, useBuilder } from './context.ts';
import { SOURCES, TRIGGERS, type TriggerDraft, type TriggerType } from './model.ts';

const HINTS: Record<TriggerType, string> = {
  subscriber_created: 'Runs for each new subscriber, or only those added one way.',
  joined_group: 'Runs each time someone is added to the group: by the API, an import, a form or another automation.',
  form_submitted: 'With double opt-in, it runs once the signup is confirmed.',
  campaign_opened: 'Once per subscriber and campaign. Automation emails do not count.',
  link_clicked: 'Once per subscriber, campaign and link. Automation emails do not count.',
  date_anniversary: 'Runs once a year on the date’s month and day, in the account’s time zone.',
};

export function TriggerForm({
  trigger,
  forms,
  campaigns,
  onChange,
}: {
  trigger: TriggerDraft;
  forms: { id: string; name: string }[];
  campaigns: { id: string; name: string }[];
  onChange: (t: TriggerDraft) => void;
}) {
  const { errors, clear, readOnly, groups, audience } = useBuilder();
  const dateFields = audience?.fields.filter((f) => f.kind === 'date' && f.key) ?? [];
  const set = <K extends keyof TriggerDraft>(key: K, value: TriggerDraft[K]) => {
    clear(key === 'type' ? 'trigger' : `trigger.${key}`);
    onChange({ ...trigger, [key]: value });
  };
  const pick = (
    key: 'group_id' | 'form_id' | 'campaign_id' | 'field' | 'source',
    label: string,
    options: { id: string; name: string }[],
    none: string,
  ) => (
    <Field id={`f-trigger-${key}`} label={label} error={errorAt(errors, `trigger.${key}`)}>
      {(id, d, invalid) => (
        <select
          id={id}
          value={trigger[key]}
          onChange={(e) => set(key, e.target.value)}
          aria-describedby={d}
          aria-invalid={invalid}
        >
          <option value="">{none}</option>
          {options.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
  return (
    <fieldset className="plain" disabled={readOnly}>
      <Field
        id="f-trigger-type"
        label="When"
        error={errorAt(errors, 'trigger') ?? errorAt(errors, 'trigger.type')}
        hint={HINTS[trigger.type]}
      >
        {(id, d) => (
          <select
            id={id}
            value={trigger.type}
            onChange={(e) => set('type', e.target.value as TriggerType)}
            aria-describedby={d}
          >
            {TRIGGERS.map((t) => (
              <option key={t.type} value={t.type}>
                {t.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {trigger.type === 'subscriber_created' &&
        pick(
          'source',
          'Added through',
          SOURCES.map((s) => ({ id: s, name: s })),
          'Any way',
        )}
      {trigger.type === 'joined_group' && pick('group_id', 'Group', groups, 'Choose a group…')}
      {trigger.type === 'form_submitted' && pick('form_id', 'Form', forms, 'Choose a form…')}
      {(trigger.type === 'campaign_opened' || trigger.type === 'link_clicked') &&
        pick('campaign_id', 'Campaign', campaigns, 'Any campaign')}
      {trigger.type === 'link_clicked' && (
        <Field id="f-trigger-url" label="Link" error={errorAt(errors, 'trigger.url')} hint="Empty: any link.">
          {(id, d, invalid) => (
            <input
              id={id}
              type="url"
              value={trigger.url}
              placeholder="https://example.com/offer"
              onChange={(e) => set('url', e.target.value)}
              aria-describedby={d}
              aria-invalid={invalid}
            />
          )}
        </Field>
      )}
      {trigger.type === 'date_anniversary' &&
        pick(
          'field',
          'Date field',
          dateFields.map((f) => ({ id: f.key!, name: f.label })),
          dateFields.length ? 'Choose a date field…' : 'No custom field of type date yet',
        )}
    </fieldset>
  );
}
