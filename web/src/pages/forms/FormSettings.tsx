// The settings of a signup form, one set of inputs for creating and for editing: name, type, which fields
// to ask and require, the groups signups join (a group picker), double opt-in, success message, redirect.
// Uncontrolled inputs; `formBody` reads them back into the API's shape.
import { Link } from 'react-router';
import type { Audience } from '../../api/audience.ts';
import type { Form } from '../../api/forms.ts';
import { Field, fieldError } from '../../ui.tsx';

export interface Choice {
  key: string;
  label: string;
}

/** The fields a form can ask besides email: the subscriber's own and the account's custom fields. */
export function fieldChoices(audience: Audience): Choice[] {
  return [
    { key: 'first_name', label: 'First name' },
    { key: 'last_name', label: 'Last name' },
    { key: 'phone', label: 'Phone' },
    ...audience.fields.filter((f) => f.key).map((f) => ({ key: f.key!, label: f.label })),
  ];
}

/** The inputs' values in the API's shape (PUT/POST /app/api/forms). */
export function formBody(f: FormData, choices: Choice[], initial?: Form) {
  const text = (k: string) => String(f.get(k) ?? '').trim();
  const labelOf = (key: string) => initial?.fields.find((x) => x.key === key)?.label;
  // the order the designer gave stays; a field newly asked goes last
  const place = (key: string) => {
    const i = initial?.fields.findIndex((x) => x.key === key) ?? -1;
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  return {
    name: text('name'),
    type: text('type'),
    double_opt_in: f.get('double_opt_in') === 'on',
    group_ids: f.getAll('group_ids').map(String),
    fields: [
      { key: 'email', required: true, ...(labelOf('email') && { label: labelOf('email') }) },
      ...choices
        .filter((c) => f.get(`field_${c.key}`) === 'on')
        .sort((a, b) => place(a.key) - place(b.key))
        .map((c) => ({
          key: c.key,
          required: f.get(`required_${c.key}`) === 'on',
          ...(labelOf(c.key) && { label: labelOf(c.key) }),
        })),
    ],
    // left empty: the server's default for a new form, the current message for an edited one
    success_message: text('success_message') || undefined,
    redirect_url: text('redirect_url') || null,
  };
}

export function FormSettings({ audience, initial, error }: { audience: Audience; initial?: Form; error: unknown }) {
  const choices = fieldChoices(audience);
  const asked = (key: string) => (initial ? initial.fields.some((f) => f.key === key) : key === 'first_name');
  const required = (key: string) => initial?.fields.some((f) => f.key === key && f.required) ?? false;
  return (
    <>
      <div className="row">
        <Field label="Form name" error={fieldError(error, 'name')}>
          {(id, d) => <input id={id} name="name" defaultValue={initial?.name} required aria-describedby={d} />}
        </Field>
        <Field label="Type" error={fieldError(error, 'type')}>
          {(id) => (
            <select id={id} name="type" defaultValue={initial?.type ?? 'hosted'}>
              <option value="hosted">Hosted page</option>
              <option value="embedded">Embedded in your site</option>
              <option value="popup">Popup</option>
            </select>
          )}
        </Field>
      </div>
      <fieldset>
        <legend>Fields (email is always asked and required)</legend>
        <table className="scope-grid">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Ask</th>
              <th scope="col">Required</th>
            </tr>
          </thead>
          <tbody>
            {choices.map((c) => (
              <tr key={c.key}>
                <th scope="row">{c.label}</th>
                <td>
                  <input
                    type="checkbox"
                    name={`field_${c.key}`}
                    aria-label={`Ask ${c.label}`}
                    defaultChecked={asked(c.key)}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    name={`required_${c.key}`}
                    aria-label={`${c.label} required`}
                    defaultChecked={required(c.key)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {fieldError(error, 'fields') && <p className="field-error">{fieldError(error, 'fields')![0]}</p>}
      </fieldset>
      <fieldset>
        <legend>Add signups to groups</legend>
        {audience.groups.length === 0 ? (
          <p className="muted">
            No groups yet. <Link to="/app/groups">Create a group</Link> to file signups in it.
          </p>
        ) : (
          <div className="group-picker">
            {audience.groups.map((g) => (
              <label className="check" key={g.id}>
                <input
                  type="checkbox"
                  name="group_ids"
                  value={g.id}
                  defaultChecked={initial?.group_ids.includes(g.id)}
                />{' '}
                {g.name}
              </label>
            ))}
          </div>
        )}
        {fieldError(error, 'group_ids') && <p className="field-error">{fieldError(error, 'group_ids')![0]}</p>}
      </fieldset>
      <label className="check">
        <input type="checkbox" name="double_opt_in" defaultChecked={initial?.double_opt_in} /> Double opt-in (send a
        confirmation link first)
      </label>
      <Field label="Success message" error={fieldError(error, 'success_message')}>
        {(id, d) => (
          <input
            id={id}
            name="success_message"
            defaultValue={initial?.success_message}
            placeholder="Thank you for subscribing!"
            aria-describedby={d}
          />
        )}
      </Field>
      <Field
        label="Redirect after signup"
        error={fieldError(error, 'redirect_url')}
        hint="Optional: an http(s) URL to send people to instead of the message."
      >
        {(id, d) => (
          <input
            id={id}
            name="redirect_url"
            type="url"
            defaultValue={initial?.redirect_url ?? ''}
            aria-describedby={d}
          />
        )}
      </Field>
    </>
  );
}
