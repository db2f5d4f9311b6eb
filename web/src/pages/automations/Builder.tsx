// The automation builder: a name, the trigger and the list of steps (conditions branch into lists of their
// own). Saving creates the automation switched off, or saves the changes; the server's field errors show
// next to their fields by path and go once the field changes. While an automation is on, its trigger and
// steps cannot change (runs in progress point into them), so the builder shows them read-only.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { audienceKeys, getAudience } from '../../api/audience.ts';
import { automationKeys, createAutomation, updateAutomation } from '../../api/automations.ts';
import { ApiError } from '../../api/client.ts';
import { Alert, Field } from '../../ui.tsx';
import { useSettings } from '../campaigns/model.ts';
import { Builder as BuilderContext, dropErrors, errorAt, type Errors } from './context.ts';
import {
  automationKey,
  draftOf,
  stepsOf,
  triggerOf,
  usePickLists,
  type Automation,
  type Draft,
  type StepDraft,
} from './model.ts';
import { StepList } from './StepList.tsx';
import { TriggerForm } from './TriggerForm.tsx';

const PICK_TRIGGER: Partial<Record<Draft['trigger']['type'], ['group_id' | 'form_id' | 'field', string]>> = {
  joined_group: ['group_id', 'Choose a group.'],
  form_submitted: ['form_id', 'Choose a form.'],
  date_anniversary: ['field', 'Choose a date field.'],
};

/** What can be told before asking the server, keyed by the paths the server uses. */
function check(d: Draft): Errors {
  const e: Errors = {};
  if (!d.name.trim()) e.name = ['Give the automation a name.'];
  const pick = PICK_TRIGGER[d.trigger.type];
  if (pick && !d.trigger[pick[0]]) e[`trigger.${pick[0]}`] = [pick[1]];
  if (d.steps.length === 0) e.steps = ['Add at least one step.'];
  const walk = (list: StepDraft[], prefix: string) =>
    list.forEach((s, i) => {
      const p = `${prefix}.${i}`;
      if ((s.type === 'add_to_group' || s.type === 'remove_from_group') && !s.group_id)
        e[`${p}.group_id`] = ['Choose a group.'];
      if (s.type === 'delay' && !/^[1-9]\d{0,5}$/.test(s.amount.trim()))
        e[`${p}.amount`] = ['Enter a whole number, 1 or more.'];
      if (s.type === 'update_field' && !s.field) e[`${p}.field`] = ['Choose a field.'];
      if (s.type === 'condition') {
        if (!s.nested && s.rules.length === 0) e[`${p}.filter.rules`] = ['Add at least one rule.'];
        walk(s.then, `${p}.then`);
        walk(s.else, `${p}.else`);
      }
    });
  walk(d.steps, 'steps');
  return e;
}

export function Builder({ automation, canEdit }: { automation?: Automation; canEdit: boolean }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const settings = useSettings();
  const audience = useQuery({ queryKey: audienceKeys.all, queryFn: getAudience });
  const lists = usePickLists();
  const [draft, setDraft] = useState<Draft>(() => draftOf(automation));
  const [errors, setErrors] = useState<Errors>({});
  const [saved, setSaved] = useState(false);
  const on = !!automation?.enabled;
  const readOnly = !canEdit || on;
  const kindOf = (field: string) => audience.data?.fields.find((f) => f.field === field)?.kind ?? 'text';

  const save = useMutation({
    mutationFn: (d: Draft) => {
      const definition = { trigger: triggerOf(d.trigger), steps: stepsOf(d.steps, kindOf) };
      if (!automation) return createAutomation({ name: d.name, enabled: false, ...definition });
      return updateAutomation(automation.id, { name: d.name, ...(!on && definition) });
    },
    onSuccess: async (a) => {
      client.setQueryData(automationKey(a.id), a);
      await client.invalidateQueries({ queryKey: automationKeys.lists });
      setSaved(true);
      if (!automation) navigate(`/app/automations/${a.id}`, { replace: true });
    },
    onError: (error) => setErrors(error instanceof ApiError ? error.fields : {}),
  });

  const context = useMemo(
    () => ({
      errors,
      clear: (prefix: string) => {
        setSaved(false);
        setErrors((e) => dropErrors(e, prefix));
      },
      readOnly,
      groups: lists.groups,
      audience: audience.data,
      sender: {
        from_name: settings.data?.default_from_name ?? '',
        from_email: settings.data?.default_from_email ?? '',
      },
    }),
    [errors, readOnly, lists.groups, audience.data, settings.data],
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problems = check(draft);
    setErrors(problems);
    if (Object.keys(problems).length) return;
    save.mutate(draft);
  };
  const other = save.error && !(save.error instanceof ApiError && save.error.status === 400) ? save.error : undefined;
  return (
    <BuilderContext.Provider value={context}>
      <form className="builder" onSubmit={submit} noValidate aria-label="Automation builder">
        <Alert error={other} />
        {Object.keys(errors).length > 0 && (
          <Alert>Some fields need a change before the automation can be saved: see the messages next to them.</Alert>
        )}
        {on && canEdit && (
          <Alert kind="warning">
            This automation is on. Turn it off to change its trigger or steps; turning it off cancels the runs in
            progress. The name can change at any time.
          </Alert>
        )}
        <div className="card">
          <Field id="f-name" label="Automation name" error={errorAt(errors, 'name')}>
            {(id, d, invalid) => (
              <input
                id={id}
                value={draft.name}
                disabled={!canEdit}
                onChange={(e) => {
                  setDraft((x) => ({ ...x, name: e.target.value }));
                  context.clear('name');
                }}
                aria-describedby={d}
                aria-invalid={invalid}
              />
            )}
          </Field>
        </div>
        <div className="card">
          <h2>Trigger</h2>
          <TriggerForm
            trigger={draft.trigger}
            forms={lists.forms}
            campaigns={lists.campaigns}
            onChange={(trigger) => setDraft((x) => ({ ...x, trigger }))}
          />
        </div>
        <div className="card">
          <h2>Steps</h2>
          {errorAt(errors, 'steps') && <p className="field-error">{errorAt(errors, 'steps')![0]}</p>}
          <StepList
            steps={draft.steps}
            path="steps"
            label="the automation"
            onChange={(steps) => setDraft((x) => ({ ...x, steps }))}
          />
        </div>
        {canEdit && (
          <div className="buttons sticky-actions">
            <button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : automation ? 'Save changes' : 'Create automation'}
            </button>
            <span role="status" className="muted">
              {saved && !save.isPending ? 'Saved.' : ''}
            </span>
          </div>
        )}
      </form>
    </BuilderContext.Provider>
  );
}
