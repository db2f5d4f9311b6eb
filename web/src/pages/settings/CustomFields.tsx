// Settings → Custom fields: the account's fields (name, key, type), create one, rename one in place and
// delete one after a confirmation that says its values go too (/app/api/fields, subscribers/fields.ts).
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createField, deleteField, renameField, settingsKeys } from '../../api/settings.ts';
import { subscriberKeys } from '../../api/subscribers.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { actionsColumn, DataTable, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Field, fieldError } from '../../ui.tsx';
import { FIELD_TYPES, useFields, type CustomField } from '../subscribers/model.ts';

const typeLabel = (t: string) => FIELD_TYPES.find((f) => f.type === t)?.label ?? t;

export function CustomFields({ canEdit }: { canEdit: boolean }) {
  const { data, error } = useFields();
  const columns: ColumnDef<CustomField>[] = [
    {
      header: 'Name',
      accessorKey: 'name',
      cell: ({ row }) => (canEdit ? <RenameField field={row.original} /> : row.original.name),
    },
    { header: 'Key', accessorKey: 'key', cell: (c) => <code>{c.getValue() as string}</code> },
    { header: 'Type', accessorKey: 'type', cell: (c) => typeLabel(c.getValue() as string) },
    ...(canEdit ? [actionsColumn<CustomField>((x) => <DeleteField field={x} />)] : []),
  ];
  return (
    <section className="card" aria-labelledby="fields-title" id="custom-fields">
      <h2 id="fields-title">Custom fields</h2>
      <p className="muted">
        Extra facts about each subscriber. The key is what the API, CSV headers, segments and templates (
        <code>{'{{ subscriber.custom_fields.key }}'}</code>) use; the name is what the dashboard shows.
      </p>
      <DataTable
        label="Custom fields"
        columns={columns}
        rows={data}
        error={error}
        empty="No custom fields yet."
        rowKey={(f) => f.id}
      />
      {canEdit && <NewField />}
    </section>
  );
}

export function NewField({
  initialKey = '',
  onCreated,
}: {
  initialKey?: string;
  /** called with the new field's key */
  onCreated?: (key: string) => void;
}) {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [key, setKey] = useState(initialKey);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const el = e.currentTarget;
    const form = new FormData(el);
    setError(undefined);
    try {
      const created = await createField({
        key,
        name: String(form.get('name') ?? '').trim() || undefined,
        type: form.get('type'),
      });
      setKey('');
      el.reset();
      await client.invalidateQueries({ queryKey: settingsKeys.fields });
      onCreated?.(created.key);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-label="New custom field" className="new-field">
      <h3>New field</h3>
      <Alert error={error} shown={['key', 'name', 'type']} />
      <div className="row">
        <Field
          label="Key"
          id={`new-field-key${initialKey ? `-${initialKey}` : ''}`}
          error={fieldError(error, 'key')}
          hint="Letters, digits and _, starting with a letter"
        >
          {(id, d, invalid) => (
            <input
              id={id}
              value={key}
              onChange={(e) => setKey(e.target.value)}
              aria-describedby={d}
              aria-invalid={invalid}
              required
            />
          )}
        </Field>
        <Field
          label="Name"
          id={`new-field-name${initialKey ? `-${initialKey}` : ''}`}
          error={fieldError(error, 'name')}
          hint="Optional; the key if empty"
        >
          {(id, d, invalid) => <input id={id} name="name" aria-describedby={d} aria-invalid={invalid} />}
        </Field>
        <Field
          label="Type"
          id={`new-field-type${initialKey ? `-${initialKey}` : ''}`}
          error={fieldError(error, 'type')}
        >
          {(id, d) => (
            <select id={id} name="type" aria-describedby={d} defaultValue="text">
              {FIELD_TYPES.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <button type="submit">Create field</button>
    </form>
  );
}

function RenameField({ field }: { field: CustomField }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(field.name);
  const [error, setError] = useState<unknown>();
  if (!editing)
    return (
      <span className="inline-edit">
        {field.name}{' '}
        <button
          type="button"
          className="secondary small"
          onClick={() => setEditing(true)}
          aria-label={`Rename ${field.name}`}
        >
          Rename
        </button>
      </span>
    );
  const save = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await renameField(field.id, name);
      await client.invalidateQueries({ queryKey: settingsKeys.fields });
      setEditing(false);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={save} noValidate className="inline-edit">
      <Field label={`New name for ${field.key}`} id={`rename-${field.key}`} error={fieldError(error, 'name')}>
        {(id, d, invalid) => (
          <input
            id={id}
            value={name}
            autoFocus
            onChange={(e) => (setName(e.target.value), setError(undefined))}
            aria-describedby={d}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Alert error={error} shown={['name']} />
      <div className="buttons">
        <button type="submit" className="small">
          Save
        </button>
        <button type="button" className="secondary small" onClick={() => (setEditing(false), setName(field.name))}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function DeleteField({ field }: { field: CustomField }) {
  const client = useQueryClient();
  return (
    <ConfirmButton
      name={`Delete ${field.name}`}
      question={`Delete “${field.name}” and every subscriber’s value for it?`}
      onConfirm={async () => {
        await deleteField(field.id);
        await client.invalidateQueries({ queryKey: settingsKeys.fields });
        await client.invalidateQueries({ queryKey: subscriberKeys.all });
      }}
    />
  );
}
