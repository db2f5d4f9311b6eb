// Groups: every group with its subscriber and active counts (the same list as REST GET /groups); create,
// rename in place, delete after a confirmation that names how many subscribers lose the membership.
// A group's members are the subscribers list filtered by the group.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, ApiError } from '../api.ts';
import { DataTable, type ColumnDef } from '../lib/table.tsx';
import { Alert, Field, formatDate } from '../ui.tsx';

export interface Group {
  id: string;
  name: string;
  subscriber_count: number;
  active_count: number;
  created_at: string;
}

interface Page {
  groups: Group[];
  pagination: { current_page: number; total_pages: number; total_count: number };
}

const members = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'subscriber' : 'subscribers'}`;

export function Groups({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: ['groups', page],
    queryFn: () => api.get<Page>(`/groups?page=${page}&per_page=50`),
  });
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<Group>();
  const [failure, setFailure] = useState<unknown>();
  const reload = () => client.invalidateQueries({ queryKey: ['groups'] });

  const remove = async (g: Group) => {
    setFailure(undefined);
    try {
      await api.del(`/groups/${g.id}`);
      setDeleting(undefined);
      await reload();
    } catch (err) {
      setFailure(err);
    }
  };

  const columns: ColumnDef<Group>[] = [
    {
      header: 'Name',
      accessorKey: 'name',
      cell: ({ row }) =>
        editing === row.original.id ? (
          <Rename group={row.original} onDone={() => setEditing(undefined)} />
        ) : (
          row.original.name
        ),
    },
    { header: 'Subscribers', accessorKey: 'subscriber_count', cell: (c) => (c.getValue() as number).toLocaleString() },
    { header: 'Active', accessorKey: 'active_count', cell: (c) => (c.getValue() as number).toLocaleString() },
    { header: 'Created', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
    {
      header: 'Actions',
      enableSorting: false,
      cell: ({ row }) => {
        const g = row.original;
        return (
          <div className="buttons">
            <Link to={`/app/subscribers?group_id=${g.id}`} aria-label={`Members of ${g.name}`}>
              Members
            </Link>
            {canEdit && (
              <>
                <button type="button" className="secondary small" onClick={() => setEditing(g.id)}>
                  Rename
                </button>
                <button type="button" className="danger small" onClick={() => setDeleting(g)}>
                  Delete
                </button>
              </>
            )}
          </div>
        );
      },
    },
  ];

  return (
    <section>
      <div className="title-row">
        <h1>Groups</h1>
      </div>
      {canEdit && <NewGroup onCreated={reload} />}
      {deleting && (
        <div className="card" role="alertdialog" aria-labelledby="delete-group-title">
          <h2 id="delete-group-title">Delete “{deleting.name}”?</h2>
          <p>{members(deleting.subscriber_count)} will leave this group. The subscribers themselves are kept.</p>
          <Alert error={failure} />
          <div className="buttons">
            <button type="button" className="danger" onClick={() => remove(deleting)}>
              Delete group
            </button>
            <button type="button" className="secondary" onClick={() => setDeleting(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <DataTable
        label="Groups"
        columns={columns}
        rows={data?.groups}
        error={error}
        empty="No groups yet."
        rowKey={(g) => g.id}
        paging={data && { page: data.pagination.current_page, lastPage: data.pagination.total_pages, onPage: setPage }}
      />
    </section>
  );
}

function NewGroup({ onCreated }: { onCreated: () => void }) {
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    try {
      await api.post('/groups', { name: new FormData(form).get('name') });
      form.reset();
      setError(undefined);
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <form className="toolbar" onSubmit={submit} noValidate aria-label="Create a group">
      <Field
        label="New group"
        error={fields.name ?? (error instanceof ApiError && !fields.name ? [error.message] : undefined)}
      >
        {(id, d) => <input id={id} name="name" required maxLength={255} aria-describedby={d} />}
      </Field>
      <button type="submit">Create group</button>
    </form>
  );
}

function Rename({ group, onDone }: { group: Group; onDone: () => void }) {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    try {
      await api.put(`/groups/${group.id}`, { name: new FormData(e.currentTarget).get('name') });
      await client.invalidateQueries({ queryKey: ['groups'] });
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <form className="inline" onSubmit={submit} noValidate>
      <Field
        label={`New name for ${group.name}`}
        error={fields.name ?? (error instanceof ApiError && !fields.name ? [error.message] : undefined)}
      >
        {(id, d) => <input id={id} name="name" defaultValue={group.name} autoFocus aria-describedby={d} />}
      </Field>
      <button type="submit" className="small">
        Save
      </button>
      <button type="button" className="secondary small" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}
