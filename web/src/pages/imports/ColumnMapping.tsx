// Before an import starts: which of the file's columns fill which subscriber field, editable. The start of
// the chosen file is sent to POST /app/api/imports/columns, which maps the header by the import's own rule
// and returns a few sample values per column; each column can then go to any field (email, names, phone,
// time zone, any custom field) or be skipped, and a custom field can be created right here. The choice is
// sent with the upload as `mapping`, so what is shown is what the import does.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { importKeys, mapColumns } from '../../api/imports.ts';
import { useFields } from '../subscribers/model.ts';
import { Alert, Loading } from '../../ui.tsx';
import { NewField } from '../settings/CustomFields.tsx';

export const BUILT_IN: Record<string, string> = {
  email: 'Email',
  first_name: 'First name',
  last_name: 'Last name',
  phone: 'Phone',
  time_zone: 'Time zone',
};
const SKIP = 'skip';
const CREATE = '__create';

/** The file's first lines (the header row and a few rows for samples), from at most its first 64 KB. */
export async function fileStart(file: File): Promise<string> {
  const head = await file.slice(0, 64 * 1024).text();
  return head
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/, 5)
    .join('\n');
}

/** A header as the import reads a custom field's key: lower case, spaces and dashes as "_". */
const asKey = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
    .replace(/[^a-z0-9_]/g, '');

export type Mapping = Record<string, string>;

export function ColumnMapping({
  start,
  value,
  onChange,
  canCreateFields,
}: {
  start: string;
  value: Mapping;
  onChange: (m: Mapping) => void;
  canCreateFields: boolean;
}) {
  const [creating, setCreating] = useState<string>();
  const preview = useQuery({ queryKey: importKeys.columns(start), queryFn: () => mapColumns(start) });
  const fields = useFields();
  // the import's own reading of the header is where the editor starts
  useEffect(() => {
    if (!preview.data) return;
    onChange(Object.fromEntries(preview.data.columns.map((c) => [c.header, c.maps_to ?? SKIP])));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [preview.data]);
  if (preview.error || fields.error) return <Alert error={preview.error ?? fields.error} />;
  if (!preview.data || !fields.data) return <Loading />;
  const custom = fields.data;
  const targets = Object.entries(value).filter(([, t]) => t !== SKIP);
  const taken = new Map(targets.map(([h, t]) => [t, h]));
  const problem = !targets.some(([, t]) => t === 'email')
    ? 'Map one column to Email: the import needs an address on every row.'
    : targets.length !== taken.size
      ? 'Two columns go to the same field; choose another for one of them.'
      : preview.data.problem && !/email column/i.test(preview.data.problem)
        ? preview.data.problem
        : null;
  const set = (header: string, target: string) => {
    if (target === CREATE) return setCreating(header);
    setCreating(undefined);
    onChange({ ...value, [header]: target });
  };
  return (
    <div className="mapping" aria-label="Column mapping" role="region">
      <h3>Columns in this file</h3>
      {problem && <Alert>{problem}</Alert>}
      <div className="table-wrap">
        <table className="mapping-table" aria-label="Columns in this file">
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">Sample values</th>
              <th scope="col">Import as</th>
            </tr>
          </thead>
          <tbody>
            {preview.data.columns.map((c) => {
              const target = value[c.header] ?? SKIP;
              const clash = target !== SKIP && taken.get(target) !== c.header;
              return (
                <tr key={c.header}>
                  <th scope="row" className="break">
                    {c.header}
                  </th>
                  <td className="muted break">{c.samples.length > 0 ? c.samples.join(' · ') : '—'}</td>
                  <td>
                    <select
                      aria-label={`Import “${c.header}” as`}
                      value={creating === c.header ? CREATE : target}
                      aria-invalid={clash || undefined}
                      onChange={(e) => set(c.header, e.target.value)}
                    >
                      <option value={SKIP}>Skip this column</option>
                      <optgroup label="Subscriber">
                        {Object.entries(BUILT_IN).map(([k, label]) => (
                          <option key={k} value={k}>
                            {label}
                          </option>
                        ))}
                      </optgroup>
                      {custom.length > 0 && (
                        <optgroup label="Custom fields">
                          {custom.map((f) => (
                            <option key={f.key} value={`custom_fields.${f.key}`}>
                              {f.name} ({f.type})
                            </option>
                          ))}
                        </optgroup>
                      )}
                      {canCreateFields && <option value={CREATE}>New custom field…</option>}
                    </select>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {creating !== undefined && (
        <div className="card">
          <p className="muted">
            A new field for the column “{creating}”; once created, the column is imported into it.
          </p>
          <NewField
            key={creating}
            initialKey={/^[a-z]/.test(asKey(creating)) ? asKey(creating).slice(0, 63) : ''}
            onCreated={(key) => {
              const header = creating;
              setCreating(undefined);
              if (key) onChange({ ...value, [header]: `custom_fields.${key}` });
            }}
          />
        </div>
      )}
    </div>
  );
}
