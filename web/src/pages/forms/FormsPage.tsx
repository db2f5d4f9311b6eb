// Signup forms: the list with their numbers and a form to create one (type, fields, groups, double opt-in,
// messages). A form opens at /app/forms/:id (forms/FormPage.tsx) to copy its snippet, edit, deactivate or delete it.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { audienceKeys, getAudience, type Audience } from '../../api/audience.ts';
import { createForm, formKeys, listForms, type Form } from '../../api/forms.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Alert, Badge, formatDate } from '../../ui.tsx';
import { fieldChoices, formBody, FormSettings } from './FormSettings.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';
import { Signups } from './Signups.tsx';

const COLUMNS: ColumnDef<Form>[] = [
  {
    header: 'Name',
    accessorKey: 'name',
    cell: ({ row }) => <Link to={`/app/forms/${row.original.id}`}>{row.original.name}</Link>,
  },
  {
    header: 'Type',
    accessorKey: 'type',
    cell: ({ row }) => `${row.original.type}${row.original.double_opt_in ? ' · double opt-in' : ''}`,
  },
  {
    header: 'Status',
    accessorKey: 'active',
    cell: ({ row }) => (row.original.active ? <Badge tone="good">active</Badge> : <Badge>inactive</Badge>),
  },
  { header: 'Views', accessorFn: (f) => f.stats.views, cell: (c) => (c.getValue() as number).toLocaleString() },
  {
    header: 'Submissions',
    accessorFn: (f) => f.stats.submissions,
    cell: (c) => (c.getValue() as number).toLocaleString(),
  },
  { header: 'Created', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
];

export function FormsPage({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: formKeys.page(page),
    queryFn: () => listForms({ page }),
  });
  const audience = useQuery({ queryKey: audienceKeys.all, queryFn: getAudience });
  return (
    <section>
      <PageHeader title="Forms" />
      {canEdit && audience.data && <CreateForm audience={audience.data} />}
      <h2>Your forms</h2>
      <DataTable
        label="Forms"
        columns={COLUMNS}
        rows={list.data?.forms}
        error={list.error}
        empty="No forms yet."
        rowKey={(f) => f.id}
        paging={pagingOf(list.data?.pagination, setPage)}
      />
      <Signups canEdit={canEdit} />
    </section>
  );
}

function CreateForm({ audience }: { audience: Audience }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    try {
      const form = await createForm(formBody(new FormData(e.currentTarget), fieldChoices(audience)));
      await client.invalidateQueries({ queryKey: formKeys.all });
      navigate(`/app/forms/${form.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="new-form-title">
      <h2 id="new-form-title">New form</h2>
      <Alert error={error} shown={['name', 'type', 'fields', 'group_ids', 'success_message', 'redirect_url']} />
      <FormSettings audience={audience} error={error} />
      <button type="submit">Create form</button>
    </form>
  );
}
