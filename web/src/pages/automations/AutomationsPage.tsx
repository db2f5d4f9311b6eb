// Automations: every automation of the account, newest first, with its trigger in words, an on/off switch,
// its runs (active / completed) and the emails it sent; "New automation" opens the builder.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { automationKeys, listAutomations, setAutomationEnabled } from '../../api/automations.ts';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Alert, Badge, formatDate, plural } from '../../ui.tsx';
import { automationKey, triggerText, usePickLists, type Automation, type Names } from './model.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';

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

export function AutomationsPage({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const { names } = usePickLists();
  const { data, error } = useQuery({
    queryKey: automationKeys.list(page),
    queryFn: () => listAutomations({ page, per_page: PER_PAGE }),
    refetchInterval: (q) => (q.state.data?.automations.some((a) => a.stats.active > 0) ? 5000 : false),
  });
  const listKey = automationKeys.list(page);
  const toggle = useMutation({
    mutationFn: (a: Automation) => setAutomationEnabled(a.id, !a.enabled),
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
    onSettled: () => client.invalidateQueries({ queryKey: automationKeys.lists }),
  });
  // turning off an automation with runs in progress cancels them: asked in the page first
  const [askingOff, setAskingOff] = useState<Automation>();
  const onToggle = (a: Automation) => {
    if (toggle.isPending) return; // one change at a time: two in flight could land in either order
    if (a.enabled && a.stats.active > 0) return setAskingOff(a);
    setAskingOff(undefined);
    toggle.mutate(a);
  };
  return (
    <section>
      <PageHeader title="Automations">
        {canEdit && (
          <Link className="button" to="/app/automations/new">
            New automation
          </Link>
        )}
      </PageHeader>
      <p className="muted">
        An automation starts a run for each subscriber its trigger matches, and the run goes through the steps: emails,
        waits, group and field changes, conditions.
      </p>
      <Alert error={toggle.error} />
      {askingOff && (
        <p className="confirm" role="alertdialog" aria-label={`Turn ${askingOff.name} off`}>
          <span>
            Turn “{askingOff.name}” off? {plural(askingOff.stats.active, 'run')} in progress will be canceled.
          </span>
          <button
            type="button"
            className="danger small"
            onClick={() => (toggle.mutate(askingOff), setAskingOff(undefined))}
          >
            Turn off
          </button>
          <button type="button" className="secondary small" onClick={() => setAskingOff(undefined)}>
            Cancel
          </button>
        </p>
      )}
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
        paging={pagingOf(data?.pagination, setPage)}
      />
    </section>
  );
}
