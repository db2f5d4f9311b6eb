// Groups: every group with its subscriber and active counts (the same list as REST GET /groups); create,
// rename in place, delete after a confirmation that names how many subscribers lose the membership.
// A group's members are the subscribers list filtered by the group.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../api/client.ts';
import { createGroup, deleteGroup, groupKeys, listGroups, renameGroup, type Group } from '../../api/groups.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Field, formatDate, plural } from '../../ui.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

const members = (n: number) => plural(n, 'subscriber');

export function GroupsPage({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: groupKeys.page(page),
    queryFn: () => listGroups({ page, per_page: 50 }),
  });
  const [editing, setEditing] = useState<string>();
  const reload = () => client.invalidateQueries({ queryKey: groupKeys.all });

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
                <ConfirmButton
                  label="Delete"
                  name={`Delete ${g.name}`}
                  question={`Delete “${g.name}”? ${members(g.subscriber_count)} will leave this group. The subscribers themselves are kept.`}
                  yes="Delete group"
                  onConfirm={async () => {
                    await deleteGroup(g.id);
                    await reload();
                  }}
                />
              </>
            )}
          </div>
        );
      },
    },
  ];

  return (
    <section>
      <PageHeader title="Groups" />
      {canEdit && <NewGroup onCreated={reload} />}
      <DataTable
        label="Groups"
        columns={columns}
        rows={data?.groups}
        error={error}
        empty="No groups yet."
        rowKey={(g) => g.id}
        paging={pagingOf(data?.pagination, setPage)}
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
      await createGroup(new FormData(form).get('name'));
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
      await renameGroup(group.id, new FormData(e.currentTarget).get('name'));
      await client.invalidateQueries({ queryKey: groupKeys.all });
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
