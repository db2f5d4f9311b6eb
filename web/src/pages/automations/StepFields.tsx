// The settings of one step, by type: how long to wait, which group, which field and value. Sending an
// email and conditions have their own files. Each field shows the server's message for its path.
import { Field } from '../../ui.tsx';
import { errorAt, fieldId, useBuilder, useSetter, type StepProps } from './context.ts';
import { ConditionStep } from './ConditionStep.tsx';
import { EmailStep } from './EmailStep.tsx';
import type { StepDraft, StepType, Unit } from './model.ts';

/** The fields each step type shows next to their input; other messages about a step go under its card. */
export const SHOWN_FIELDS: Record<StepType, string[]> = {
  delay: ['amount', 'unit'],
  send_email: ['subject', 'content_html', 'from_name', 'from_email'],
  add_to_group: ['group_id'],
  remove_from_group: ['group_id'],
  update_field: ['field', 'value'],
  condition: [],
};

const CORE_FIELDS = [
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['phone', 'Phone'],
] as const;

export function StepBody(props: StepProps) {
  const { step } = props;
  switch (step.type) {
    case 'delay':
      return <DelayStep {...props} step={step} />;
    case 'send_email':
      return <EmailStep {...props} step={step} />;
    case 'add_to_group':
    case 'remove_from_group':
      return <GroupStep {...props} step={step} />;
    case 'update_field':
      return <UpdateFieldStep {...props} step={step} />;
    case 'condition':
      return <ConditionStep {...props} step={step} />;
  }
}

function DelayStep(props: StepProps<Extract<StepDraft, { type: 'delay' }>>) {
  const { errors, readOnly } = useBuilder();
  const { step, path } = props;
  const set = useSetter(props);
  return (
    <fieldset className="plain row" disabled={readOnly}>
      <Field id={fieldId(path, 'amount')} label="Wait for" error={errorAt(errors, `${path}.amount`)}>
        {(id, d, invalid) => (
          <input
            id={id}
            type="number"
            min={1}
            inputMode="numeric"
            value={step.amount}
            onChange={(e) => set('amount', e.target.value)}
            aria-describedby={d}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field id={fieldId(path, 'unit')} label="Unit" error={errorAt(errors, `${path}.unit`)}>
        {(id, d) => (
          <select id={id} value={step.unit} onChange={(e) => set('unit', e.target.value as Unit)} aria-describedby={d}>
            <option value="minutes">minutes</option>
            <option value="hours">hours</option>
            <option value="days">days</option>
          </select>
        )}
      </Field>
    </fieldset>
  );
}

function GroupStep(props: StepProps<Extract<StepDraft, { type: 'add_to_group' | 'remove_from_group' }>>) {
  const { errors, groups, readOnly } = useBuilder();
  const { step, path } = props;
  const set = useSetter(props);
  return (
    <fieldset className="plain" disabled={readOnly}>
      <Field id={fieldId(path, 'group_id')} label="Group" error={errorAt(errors, `${path}.group_id`)}>
        {(id, d, invalid) => (
          <select
            id={id}
            value={step.group_id}
            onChange={(e) => set('group_id', e.target.value)}
            aria-describedby={d}
            aria-invalid={invalid}
          >
            <option value="">Choose a group…</option>
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </fieldset>
  );
}

function UpdateFieldStep(props: StepProps<Extract<StepDraft, { type: 'update_field' }>>) {
  const { errors, audience, readOnly } = useBuilder();
  const { step, path } = props;
  const set = useSetter(props);
  const custom = audience?.fields.filter((f) => f.key) ?? [];
  return (
    <fieldset className="plain row" disabled={readOnly}>
      <Field id={fieldId(path, 'field')} label="Field" error={errorAt(errors, `${path}.field`)}>
        {(id, d, invalid) => (
          <select
            id={id}
            value={step.field}
            onChange={(e) => set('field', e.target.value)}
            aria-describedby={d}
            aria-invalid={invalid}
          >
            <option value="">Choose a field…</option>
            {CORE_FIELDS.map(([f, label]) => (
              <option key={f} value={f}>
                {label}
              </option>
            ))}
            {custom.map((f) => (
              <option key={f.field} value={f.field}>
                {f.label} ({f.kind})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        id={fieldId(path, 'value')}
        label="New value"
        error={errorAt(errors, `${path}.value`)}
        hint="Leave empty to clear the field."
      >
        {(id, d, invalid) => (
          <input
            id={id}
            value={step.value}
            onChange={(e) => set('value', e.target.value)}
            aria-describedby={d}
            aria-invalid={invalid}
          />
        )}
      </Field>
    </fieldset>
  );
}
