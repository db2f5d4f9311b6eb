// One subscriber's form: email, names, status, groups and custom fields, saved together in one request
// (PUT /app/api/subscribers/:id, one transaction on the server: a refused field saves nothing). Without a
// subscriber it adds a new one with all of that at once (POST /app/api/subscribers). Each server error
// shows next to its field and goes away once that field changes.
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import { createSubscriber, subscriberKeys, updateSubscriber } from '../../api/subscribers.ts';
import { Alert, Field, withoutKey } from '../../ui.tsx';
import { CustomFieldInput, fromValue, toValue } from './CustomFieldInput.tsx';
import { useFields, useGroups, type FullSubscriber } from './model.ts';

interface Draft {
  email: string;
  first_name: string;
  last_name: string;
  phone: string;
  time_zone: string;
  status: string;
  group_ids: string[];
  custom: Record<string, string>;
}

const EMPTY: Draft = {
  email: '',
  first_name: '',
  last_name: '',
  phone: '',
  time_zone: '',
  status: 'active',
  group_ids: [],
  custom: {},
};

const draftOf = (s: FullSubscriber | undefined): Draft =>
  s
    ? {
        email: s.email,
        first_name: s.first_name ?? '',
        last_name: s.last_name ?? '',
        phone: s.phone ?? '',
        time_zone: s.time_zone ?? '',
        status: s.status,
        group_ids: s.groups.map((g) => g.id),
        custom: Object.fromEntries(Object.entries(s.custom_fields ?? {}).map(([k, v]) => [k, fromValue(v)])),
      }
    : EMPTY;

export function EditSubscriber({
  subscriber,
  onSaved,
  onEdit,
  onCancel,
}: {
  /** absent: the form adds a new subscriber */
  subscriber?: FullSubscriber;
  /** after a save; for a new subscriber, with its id */
  onSaved: (id: string) => void;
  /** told on every change, so the page can drop its "Saved" note */
  onEdit?: () => void;
  /** a new subscriber's form offers Cancel */
  onCancel?: () => void;
}) {
  const client = useQueryClient();
  const fields = useFields();
  const groups = useGroups();
  const [draft, setDraft] = useState(() => draftOf(subscriber));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const change = (key: string, patch: Partial<Draft>) => {
    onEdit?.();
    setDraft((d) => ({ ...d, ...patch }));
    setErrors(({ [key]: _gone, ...rest }) => rest);
  };
  const err = (key: string) => (errors[key]?.length ? [withoutKey(errors[key][0]!)] : undefined);
  const settable = draft.status === 'active' || draft.status === 'unsubscribed';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const defs = fields.data ?? [];
    const custom = Object.fromEntries(defs.map((f) => [f.key, toValue(f.type, draft.custom[f.key] ?? '')]));
    try {
      if (!subscriber) {
        const created = await createSubscriber({
          email: draft.email,
          first_name: draft.first_name.trim() || undefined,
          last_name: draft.last_name.trim() || undefined,
          phone: draft.phone.trim() || undefined,
          time_zone: draft.time_zone.trim() || undefined,
          group_ids: draft.group_ids,
          // a new subscriber has nothing to clear: only the fields filled in
          custom_fields: Object.fromEntries(Object.entries(custom).filter(([, v]) => v !== null)),
        });
        await client.invalidateQueries({ queryKey: subscriberKeys.all });
        return onSaved(created.id);
      }
      const saved = await updateSubscriber(subscriber.id, {
        email: draft.email,
        first_name: draft.first_name.trim() || null,
        last_name: draft.last_name.trim() || null,
        phone: draft.phone.trim() || null,
        time_zone: draft.time_zone.trim() || null,
        ...(settable && draft.status !== subscriber.status && { status: draft.status }),
        group_ids: draft.group_ids,
        custom_fields: custom,
      });
      client.setQueryData(subscriberKeys.one(subscriber.id), saved);
      setBusy(false);
      onSaved(subscriber.id);
      await client.invalidateQueries({ queryKey: subscriberKeys.all });
    } catch (caught) {
      setError(caught);
      setErrors(caught instanceof ApiError ? caught.fields : {});
      setBusy(false);
    }
  };

  const shown = [
    'email',
    'first_name',
    'last_name',
    'phone',
    'time_zone',
    'status',
    'group_ids',
    ...(fields.data ?? []).map((f) => `custom_fields.${f.key}`),
  ];
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="edit-sub-title">
      <h2 id="edit-sub-title">{subscriber ? 'Edit subscriber' : 'Add a subscriber'}</h2>
      <Alert error={error} shown={shown} />
      <div className="row">
        <Field label="Email" id="sub-email" error={err('email')}>
          {(id, d, invalid) => (
            <input
              id={id}
              type="email"
              value={draft.email}
              aria-describedby={d}
              aria-invalid={invalid}
              onChange={(e) => change('email', { email: e.target.value })}
            />
          )}
        </Field>
        {subscriber && (
          <Field label="Status" id="sub-status" error={err('status')}>
            {(id, d) => (
              <select
                id={id}
                value={draft.status}
                aria-describedby={d}
                onChange={(e) => change('status', { status: e.target.value })}
              >
                <option value="active">Active</option>
                <option value="unsubscribed">Unsubscribed</option>
                {!['active', 'unsubscribed'].includes(subscriber.status) && (
                  <option value={subscriber.status} disabled>
                    {subscriber.status} (set by bounce handling)
                  </option>
                )}
              </select>
            )}
          </Field>
        )}
      </div>
      <div className="row">
        <Field label="First name" id="sub-first-name" error={err('first_name')}>
          {(id, d, invalid) => (
            <input
              id={id}
              value={draft.first_name}
              aria-describedby={d}
              aria-invalid={invalid}
              onChange={(e) => change('first_name', { first_name: e.target.value })}
            />
          )}
        </Field>
        <Field label="Last name" id="sub-last-name" error={err('last_name')}>
          {(id, d, invalid) => (
            <input
              id={id}
              value={draft.last_name}
              aria-describedby={d}
              aria-invalid={invalid}
              onChange={(e) => change('last_name', { last_name: e.target.value })}
            />
          )}
        </Field>
        <Field label="Phone" id="sub-phone" error={err('phone')}>
          {(id, d, invalid) => (
            <input
              id={id}
              type="tel"
              value={draft.phone}
              aria-describedby={d}
              aria-invalid={invalid}
              onChange={(e) => change('phone', { phone: e.target.value })}
            />
          )}
        </Field>
        <Field label="Time zone" id="sub-time_zone" error={err('time_zone')}>
          {(id, d, invalid) => (
            <input
              id={id}
              value={draft.time_zone}
              placeholder="the account's (e.g. Europe/Berlin)"
              aria-describedby={d}
              aria-invalid={invalid}
              onChange={(e) => change('time_zone', { time_zone: e.target.value })}
            />
          )}
        </Field>
      </div>
      {(fields.data?.length ?? 0) > 0 && (
        <fieldset>
          <legend>Custom fields</legend>
          <div className="row">
            {fields.data!.map((f) => (
              <CustomFieldInput
                key={f.id}
                field={f}
                value={draft.custom[f.key] ?? ''}
                error={err(`custom_fields.${f.key}`)}
                onChange={(v) => change(`custom_fields.${f.key}`, { custom: { ...draft.custom, [f.key]: v } })}
              />
            ))}
          </div>
        </fieldset>
      )}
      <fieldset aria-describedby={err('group_ids') ? 'sub-groups-error' : undefined}>
        <legend>Groups</legend>
        {groups.data?.groups.length === 0 && <p className="muted">No groups yet.</p>}
        <div className="check-grid">
          {groups.data?.groups.map((g) => (
            <label key={g.id} className="check">
              <input
                type="checkbox"
                checked={draft.group_ids.includes(g.id)}
                onChange={(e) =>
                  change('group_ids', {
                    group_ids: e.target.checked
                      ? [...draft.group_ids, g.id]
                      : draft.group_ids.filter((id) => id !== g.id),
                  })
                }
              />
              {g.name}
            </label>
          ))}
        </div>
        {err('group_ids') && (
          <p className="field-error" id="sub-groups-error">
            {err('group_ids')![0]}
          </p>
        )}
      </fieldset>
      <div className="buttons">
        <button type="submit" disabled={busy || !fields.data}>
          {busy ? 'Saving…' : subscriber ? 'Save changes' : 'Add subscriber'}
        </button>
        {subscriber ? (
          <button
            type="button"
            className="secondary"
            onClick={() => (setDraft(draftOf(subscriber)), setErrors({}), setError(undefined))}
          >
            Undo changes
          </button>
        ) : (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
