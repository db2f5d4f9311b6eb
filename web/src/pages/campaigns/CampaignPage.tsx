// One campaign, new or existing. A draft is edited, tested and sent from here; a scheduled one shows
// when it goes and can be cancelled; a sending one shows its progress live; a sent one its report.
// Any campaign can be duplicated into a new draft.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError } from '../../api.ts';
import { formatInZone } from '../../lib/zone.ts';
import { Alert, Badge, Loading } from '../../ui.tsx';
import { draftOf, Editor, type Draft } from './Editor.tsx';
import { campaignKey, STATUS_TONE, useCampaign, useSettings, type Campaign } from './model.ts';
import { Preview } from './Preview.tsx';
import { Progress } from './Progress.tsx';
import { Report } from './Report.tsx';
import { SendOrSchedule, TestSend } from './SendPanel.tsx';
import { RetryFailed } from './RetryFailed.tsx';

export function CampaignPage({ id, canEdit }: { id?: string; canEdit: boolean }) {
  const campaign = useCampaign(id);
  const settings = useSettings();
  const back = (
    <p>
      <Link to="/app/campaigns">← Campaigns</Link>
    </p>
  );
  if (campaign.error || settings.error)
    return (
      <section>
        {back}
        <Alert error={campaign.error ?? settings.error} />
      </section>
    );
  if ((id && !campaign.data) || !settings.data) return <Loading />;
  const c = campaign.data;
  if (!c)
    return (
      <section>
        {back}
        <h1>New campaign</h1>
        {canEdit ? (
          <DraftWorkspace settings={settings.data} />
        ) : (
          <Alert kind="warning">Your role can read campaigns but not write them.</Alert>
        )}
      </section>
    );
  return (
    <section>
      {back}
      <Header campaign={c} canEdit={canEdit} />
      {c.status === 'draft' && canEdit ? (
        <DraftWorkspace key={c.id} campaign={c} settings={settings.data} />
      ) : (
        <Sent campaign={c} timezone={settings.data.timezone} />
      )}
    </section>
  );
}

function Header({ campaign: c, canEdit }: { campaign: Campaign; canEdit: boolean }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const act = useMutation({
    mutationFn: async (what: 'duplicate' | 'cancel' | 'delete') => {
      if (what === 'duplicate') return api.post<Campaign>(`/campaigns/${c.id}/duplicate`);
      if (what === 'cancel') return api.post<Campaign>(`/campaigns/${c.id}/cancel`);
      await api.del(`/campaigns/${c.id}`);
      return undefined;
    },
    onSuccess: async (result, what) => {
      await client.invalidateQueries({ queryKey: ['campaigns'] });
      if (what === 'duplicate' && result) navigate(`/app/campaigns/${result.id}`);
      else if (what === 'delete') navigate('/app/campaigns', { replace: true });
      else if (result) client.setQueryData(campaignKey(c.id), result);
    },
  });
  return (
    <>
      <div className="title-row">
        <h1>
          {c.name} <Badge tone={STATUS_TONE[c.status]}>{c.status}</Badge>
        </h1>
        {canEdit && (
          <div className="buttons">
            <button
              type="button"
              className="secondary"
              onClick={() => act.mutate('duplicate')}
              disabled={act.isPending}
            >
              Duplicate
            </button>
            {(c.status === 'sent' || c.status === 'sending') && <RetryFailed id={c.id} />}
            {(c.status === 'scheduled' || c.status === 'sending') && (
              <button
                type="button"
                className="danger-outline"
                onClick={() =>
                  confirm(
                    c.status === 'sending'
                      ? 'Stop this send? Messages not yet handed to the mail server are not sent.'
                      : 'Cancel this scheduled campaign?',
                  ) && act.mutate('cancel')
                }
              >
                {c.status === 'sending' ? 'Stop sending' : 'Cancel schedule'}
              </button>
            )}
            {c.status === 'draft' && (
              <button
                type="button"
                className="danger-outline"
                onClick={() => confirm(`Delete the draft “${c.name}”?`) && act.mutate('delete')}
              >
                Delete
              </button>
            )}
          </div>
        )}
      </div>
      <Alert error={act.error} />
    </>
  );
}

function DraftWorkspace({
  campaign,
  settings,
}: {
  campaign?: Campaign;
  settings: Parameters<typeof draftOf>[1] & { timezone: string };
}) {
  const client = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(campaign, settings));
  const [saveProblem, setSaveProblem] = useState<string>();
  const current = client.getQueryData<Campaign>(campaignKey(campaign?.id ?? '')) ?? campaign;
  const dirty = !!current && JSON.stringify(draftOf(current, settings)) !== JSON.stringify(draft);
  // sending or testing uses what the server has: unsaved edits are saved first
  const beforeSend = async () => {
    setSaveProblem(undefined);
    if (!current || !dirty) return true;
    try {
      const saved = await api.put<Campaign>(`/campaigns/${current.id}`, {
        ...draft,
        preview_text: draft.preview_text || undefined,
        from_name: draft.from_name || undefined,
        from_email: draft.from_email || undefined,
        reply_to: draft.reply_to || undefined,
      });
      client.setQueryData(campaignKey(saved.id), saved);
      return true;
    } catch (err) {
      setSaveProblem(
        err instanceof ApiError && err.status === 400
          ? 'Your latest changes could not be saved: use “Save draft” above to see what needs fixing.'
          : err instanceof Error
            ? err.message
            : 'Your latest changes could not be saved.',
      );
      return false;
    }
  };
  return (
    <>
      <Editor campaign={current} settings={settings} draft={draft} setDraft={setDraft} />
      {current && (
        <div className="send-area">
          {saveProblem && <Alert>{saveProblem}</Alert>}
          <TestSend campaign={current} beforeSend={beforeSend} />
          <SendOrSchedule campaign={current} timezone={settings.timezone} beforeSend={beforeSend} />
        </div>
      )}
    </>
  );
}

function Sent({ campaign: c, timezone }: { campaign: Campaign; timezone: string }) {
  return (
    <>
      <div className="card">
        <dl className="facts">
          <dt>Subject</dt>
          <dd>{c.subject}</dd>
          <dt>From</dt>
          <dd>{c.from_name ? `${c.from_name} <${c.from_email ?? ''}>` : (c.from_email ?? '—')}</dd>
          <dt>Audience</dt>
          <dd>{c.audience.join(', ') || '—'}</dd>
          <dt>Recipients</dt>
          <dd>{c.recipients === null ? '—' : c.recipients.toLocaleString()}</dd>
          {c.scheduled_at && (
            <>
              <dt>Scheduled for</dt>
              <dd>{formatInZone(c.scheduled_at, timezone)}</dd>
            </>
          )}
          {c.sent_at && (
            <>
              <dt>Sent</dt>
              <dd>{formatInZone(c.sent_at, timezone)}</dd>
            </>
          )}
        </dl>
      </div>
      {c.status !== 'scheduled' && c.status !== 'draft' && <Progress id={c.id} live={c.status === 'sending'} />}
      {(c.status === 'sent' || c.status === 'sending' || (c.status === 'cancelled' && c.sent > 0)) && (
        <Report id={c.id} live={c.status === 'sending'} />
      )}
      {(c.status === 'scheduled' || c.status === 'draft') && <Preview campaignId={c.id} />}
    </>
  );
}
