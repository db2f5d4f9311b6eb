// Before an import starts: which of the file's columns fill which subscriber field. The first line of the
// chosen file is sent to POST /app/api/imports/columns, which maps it by the import's own header rule, so
// what is shown is what the import will do. An ignored column offers to create the custom field it names.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api.ts';
import { DataTable, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Loading } from '../../ui.tsx';
import { NewField } from '../settings/CustomFields.tsx';

interface Column {
  header: string;
  maps_to: string | null;
  field: { key: string; name: string; type: string } | null;
}
interface Mapping {
  columns: Column[];
  problem: string | null;
}

const BUILT_IN: Record<string, string> = {
  email: 'Email',
  first_name: 'First name',
  last_name: 'Last name',
  phone: 'Phone',
};

/** The file's first line (the header row), read from at most its first 64 KB. */
export async function headerLine(file: File): Promise<string> {
  const head = await file.slice(0, 64 * 1024).text();
  return head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
}

/** A header as the import reads a custom field's key: lower case, spaces and dashes as "_". */
const asKey = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

export function ColumnMapping({ header, canCreateFields }: { header: string; canCreateFields: boolean }) {
  const [creating, setCreating] = useState<string>();
  const { data, error, refetch } = useQuery({
    queryKey: ['imports', 'columns', header],
    queryFn: async () => {
      const m = await api.post<Mapping>('/imports/columns', { header });
      return { ...m, columns: m.columns.map((c, index) => ({ ...c, index })) };
    },
  });
  if (error) return <Alert error={error} />;
  if (!data) return <Loading />;
  const columns: ColumnDef<Column & { index: number }>[] = [
    { header: 'Column', accessorKey: 'header', meta: { className: 'break' } },
    {
      header: 'Imported as',
      id: 'target',
      enableSorting: false,
      cell: ({ row: { original: c } }) =>
        c.maps_to && BUILT_IN[c.maps_to] ? (
          BUILT_IN[c.maps_to]
        ) : c.field ? (
          `Custom field “${c.field.name}” (${c.field.type})`
        ) : (
          <span>
            <span className="muted">ignored — no such field</span>{' '}
            {canCreateFields && /^[a-z][a-z0-9_]{0,62}$/.test(asKey(c.header)) && (
              <button type="button" className="secondary small" onClick={() => setCreating(c.header)}>
                Create field “{asKey(c.header)}”
              </button>
            )}
          </span>
        ),
    },
  ];
  return (
    <div className="mapping" aria-label="Column mapping" role="region">
      <h3>Columns in this file</h3>
      {data.problem && <Alert>{data.problem}</Alert>}
      <DataTable
        label="Columns in this file"
        columns={columns}
        rows={data.columns}
        empty="The first line has no columns."
        rowKey={(c) => String(c.index)}
      />
      {creating && (
        <div className="card">
          <NewField
            key={creating}
            initialKey={asKey(creating)}
            onCreated={() => {
              setCreating(undefined);
              void refetch();
            }}
          />
        </div>
      )}
    </div>
  );
}
