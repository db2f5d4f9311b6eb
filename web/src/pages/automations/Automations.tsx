// Automations: every automation of the account, newest first, with its trigger in words, an on/off switch,
// its runs (active / completed) and the emails it sent; "New automation" opens the builder.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, qs } from '../../api.ts';
import { DataTable, lastPageOf, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Badge, formatDate, plural } from '../../ui.tsx';
import { automationKey, triggerText, usePickLists, type Automation, type Names } from './model.ts';

const PER_PAGE = 20;

function columns(names: Names, toggle: ((a: Automation) => void) | undefined): ColumnDef<Automation>[] {
  return [
    {
      header: 'Name',
      accessorKey: 'name',
      cell: ({ row: { original: a } }) => <Link to={`/app/automations/${a.id}`}>{a.name}</Link>,
    },
    {
      header: 'State',
      accessorKey: 'enabled',
      cell: ({ row: { original: a } }) =>
        toggle ? (
          <button
            type="button"
            role="switch"
            aria-checked={a.enabled}
            className={`switch${a.enabled ? ' on' : ''}`}
            onClick={() => toggle(a)}
            aria-label={`${a.name} enabled`}
          >
            <span aria-hidden="true">{a.enabled ? 'On' : 'Off'}</span>
          </button>
        ) : (
          <Badge tone={a.enabled ? 'good' : 'neutral'}>{a.enabled ? 'on' : 'off'}</Badge>
        ),
    },
    { header: 'Trigger', id: 'trigger', accessorFn: (a) => triggerText(a.trigger, names) },
    {
      header: 'Runs',
      id: 'runs',
      accessorFn: (a) => a.stats.started,
      cell: ({ row: { original: a } }) => (
        <>
          {a.stats.active.toLocaleString()} active
          <div className="muted small-text">{a.stats.completed.toLocaleString()} completed</div>
        </>
      ),
    },
    {
      header: 'Emails sent',
      id: 'emails',
      accessorFn: (a) => a.stats.emails_sent,
      cell: (c) => (c.getValue() as number).toLocaleString(),
    },
    { header: 'Created', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
  ];
}

export function Automations({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const { names } = usePickLists();
  const { data, error } = useQuery({
    queryKey: ['automations', 'list', page],
    queryFn: () =>
      api.get<{ automations: Automation[]; page: number; per_page: number; total: number }>(
        `/automations${qs({ page, per_page: PER_PAGE })}`,
      ),
    refetchInterval: (q) => (q.state.data?.automations.some((a) => a.stats.active > 0) ? 5000 : false),
  });
  const listKey = ['automations', 'list', page];
  const toggle = useMutation({
    mutationFn: (a: Automation) => api.post<Automation>(`/automations/${a.id}/${a.enabled ? 'disable' : 'enable'}`),
    // the switch turns at the click; the list read after the answer (or the error) settles it
    onMutate: async (a) => {
      await client.cancelQueries({ queryKey: listKey });
      client.setQueryData<typeof data>(
        listKey,
        (list) =>
          list && {
            ...list,
            automations: list.automations.map((x) => (x.id === a.id ? { ...x, enabled: !a.enabled } : x)),
          },
      );
    },
    onSuccess: (a) => client.setQueryData(automationKey(a.id), a),
    onSettled: () => client.invalidateQueries({ queryKey: ['automations', 'list'] }),
  });
  const onToggle = (a: Automation) => {
    if (toggle.isPending) return; // one change at a time: two in flight could land in either order
    if (
      a.enabled &&
      a.stats.active > 0 &&
      !confirm(`Turn “${a.name}” off? ${plural(a.stats.active, 'run')} in progress will be canceled.`)
    )
      return;
    toggle.mutate(a);
  };
  return (
    <section>
      <div className="title-row">
        <h1>Automations</h1>
        {canEdit && (
          <Link className="button" to="/app/automations/new">
            New automation
          </Link>
        )}
      </div>
      <p className="muted">
        An automation starts a run for each subscriber its trigger matches, and the run goes through the steps: emails,
        waits, group and field changes, conditions.
      </p>
      <Alert error={toggle.error} />
      <DataTable
        label="Automations"
        columns={columns(names, canEdit ? onToggle : undefined)}
        rows={data?.automations}
        error={error}
        empty={
          <>
            No automations yet.{' '}
            {canEdit && (
              <Link className="button" to="/app/automations/new">
                New automation
              </Link>
            )}
          </>
        }
        rowKey={(a) => a.id}
        paging={data && { page, lastPage: lastPageOf(data.total, data.per_page), onPage: setPage }}
      />
    </section>
  );
}
