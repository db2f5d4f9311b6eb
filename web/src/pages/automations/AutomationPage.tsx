// One automation, new or existing: its name, whether it is on (turn it on or off here), its counters, and
// two views, the builder ("Workflow") and what it did ("Activity"), picked in the address (?view=activity).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { automationKeys, deleteAutomation, setAutomationEnabled } from '../../api/automations.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, Badge, Loading, plural } from '../../ui.tsx';
import { Activity } from './Activity.tsx';
import { Builder } from './Builder.tsx';
import { automationKey, useAutomation, type Automation } from './model.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';

export function AutomationPage({ id, canEdit }: { id?: string; canEdit: boolean }) {
  const automation = useAutomation(id);
  const [params, setParams] = useSearchParams();
  const view = params.get('view') === 'activity' ? 'activity' : 'workflow';
  const back = (
    <p>
      <Link to="/app/automations">← Automations</Link>
    </p>
  );
  if (automation.error)
    return (
      <section>
        {back}
        <Alert error={automation.error} />
      </section>
    );
  if (!id)
    return (
      <section>
        {back}
        <PageHeader title="New automation" />
        {canEdit ? (
          <Builder canEdit />
        ) : (
          <Alert kind="warning">Your role can read automations but not change them.</Alert>
        )}
      </section>
    );
  const a = automation.data;
  if (!a) return <Loading />;
  return (
    <section>
      {back}
      <Header automation={a} canEdit={canEdit} />
      <div className="tabs" role="tablist" aria-label="Automation view">
        {(['workflow', 'activity'] as const).map((v) => (
          <button
            key={v}
            type="button"
            role="tab"
            aria-selected={view === v}
            className={`tab${view === v ? ' active' : ''}`}
            onClick={() => setParams(v === 'activity' ? { view: v } : {}, { replace: true })}
          >
            {v === 'workflow' ? 'Workflow' : 'Activity'}
          </button>
        ))}
      </div>
      <div className="tab-panel" role="tabpanel">
        {view === 'workflow' ? <Builder key={a.id} automation={a} canEdit={canEdit} /> : <Activity automation={a} />}
      </div>
    </section>
  );
}

function Header({ automation: a, canEdit }: { automation: Automation; canEdit: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const act = useMutation({
    mutationFn: async (what: 'enable' | 'disable' | 'delete') => {
      if (what === 'delete') {
        await deleteAutomation(a.id);
        return undefined;
      }
      return setAutomationEnabled(a.id, what === 'enable');
    },
    onSuccess: async (result, what) => {
      if (result) client.setQueryData(automationKey(a.id), result);
      await client.invalidateQueries({ queryKey: automationKeys.lists });
      if (what === 'delete') navigate('/app/automations', { replace: true });
    },
  });
  return (
    <>
      <PageHeader
        title={
          <>
            {a.name} <Badge tone={a.enabled ? 'good' : 'neutral'}>{a.enabled ? 'on' : 'off'}</Badge>
          </>
        }
      >
        {canEdit && (
          <div className="buttons">
            {a.enabled ? (
              <ConfirmButton
                label="Turn off"
                name="Turn off"
                question={`Turn “${a.name}” off? ${plural(a.stats.active, 'run')} in progress will be canceled.`}
                yes="Turn off"
                tone="secondary"
                size="normal"
                ask={a.stats.active > 0}
                onConfirm={() => act.mutateAsync('disable')}
              />
            ) : (
              <button type="button" onClick={() => act.mutate('enable')} disabled={act.isPending}>
                Turn on
              </button>
            )}
            <ConfirmButton
              label="Delete"
              name={`Delete ${a.name}`}
              question={`Delete “${a.name}” with its runs? Emails not yet sent by it will not be sent.`}
              size="normal"
              onConfirm={() => act.mutateAsync('delete')}
            />
          </div>
        )}
      </PageHeader>
      {/* a turn-off's or a delete's failure is shown in its confirmation */}
      <Alert error={act.variables === 'enable' ? act.error : undefined} />
      <dl className="counts automation-counts">
        {(
          [
            ['Started', a.stats.started],
            ['Active', a.stats.active],
            ['Completed', a.stats.completed],
            ['Emails sent', a.stats.emails_sent],
          ] as const
        ).map(([label, n]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{n.toLocaleString()}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
