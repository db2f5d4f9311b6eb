// One campaign, new or existing. A draft is edited, tested and sent from here; a scheduled one shows
// when it goes and can be cancelled; a sending one shows its progress live; a sent one its report.
// Any campaign can be duplicated into a new draft.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client.ts';
import {
  campaignKeys,
  cancelCampaign,
  deleteCampaign,
  duplicateCampaign,
  pauseCampaign,
  resendCampaign,
  resumeCampaign,
  scheduleCampaign,
  updateCampaign,
} from '../../api/campaigns.ts';
import { abTestBody } from './AbTestEditor.tsx';
import { AbTestReport } from './AbTestReport.tsx';
import { formatInZone } from '../../lib/zone.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, Badge, Loading } from '../../ui.tsx';
import { draftOf, Editor, type Draft } from './Editor.tsx';
import { campaignKey, STATUS_TONE, useCampaign, useSettings, type Campaign } from './model.ts';
import { Preview } from './Preview.tsx';
import { Progress } from './Progress.tsx';
import { Report } from './Report.tsx';
import { SendOrSchedule, TestSend } from './SendPanel.tsx';
import { RetryFailed } from './RetryFailed.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

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
        <PageHeader title="New campaign" />
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
        <Sent campaign={c} timezone={settings.data.timezone} canEdit={canEdit} />
      )}
    </section>
  );
}

function Header({ campaign: c, canEdit }: { campaign: Campaign; canEdit: boolean }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const act = useMutation({
    mutationFn: async (what: 'duplicate' | 'cancel' | 'delete' | 'pause' | 'resume') => {
      if (what === 'duplicate') return duplicateCampaign(c.id);
      if (what === 'cancel') return cancelCampaign(c.id);
      if (what === 'pause') return pauseCampaign(c.id);
      if (what === 'resume') return resumeCampaign(c.id);
      await deleteCampaign(c.id);
      return undefined;
    },
    onSuccess: async (result, what) => {
      await client.invalidateQueries({ queryKey: campaignKeys.all });
      if (what === 'duplicate' && result) navigate(`/app/campaigns/${result.id}`);
      else if (what === 'delete') navigate('/app/campaigns', { replace: true });
      else if (result) client.setQueryData(campaignKey(c.id), result);
    },
  });
  return (
    <>
      <PageHeader
        title={
          <>
            {c.name} <Badge tone={STATUS_TONE[c.status]}>{c.status}</Badge>
          </>
        }
      >
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
            {c.status === 'sent' && <ResendButton campaign={c} />}
            {c.status === 'sending' && (
              <button type="button" className="secondary" onClick={() => act.mutate('pause')} disabled={act.isPending}>
                Pause
              </button>
            )}
            {c.status === 'paused' && (
              <button type="button" onClick={() => act.mutate('resume')} disabled={act.isPending}>
                Resume
              </button>
            )}
            {(c.status === 'scheduled' || c.status === 'sending' || c.status === 'paused') && (
              <ConfirmButton
                label={c.status === 'scheduled' ? 'Cancel schedule' : 'Stop sending'}
                name={c.status === 'scheduled' ? 'Cancel schedule' : 'Stop sending'}
                question={
                  c.status !== 'scheduled'
                    ? 'Stop this send? Messages not yet handed to the mail server are not sent.'
                    : 'Cancel this scheduled campaign?'
                }
                yes={c.status !== 'scheduled' ? 'Yes, stop' : 'Yes, cancel'}
                size="normal"
                onConfirm={() => act.mutateAsync('cancel')}
              />
            )}
            {c.status === 'draft' && (
              <ConfirmButton
                label="Delete"
                name={`Delete the draft ${c.name}`}
                question={`Delete the draft “${c.name}”?`}
                size="normal"
                onConfirm={() => act.mutateAsync('delete')}
              />
            )}
          </div>
        )}
      </PageHeader>
      {/* a cancel's or a delete's failure is shown in its confirmation */}
      <Alert
        error={
          act.variables === 'duplicate' || act.variables === 'pause' || act.variables === 'resume'
            ? act.error
            : undefined
        }
      />
    </>
  );
}

/**
 * Resend to non-openers: a follow-up draft to who the campaign reached without a human open, with a new
 * subject if wanted; sent N days later when N is given (else it opens as a draft to review and send).
 */
function ResendButton({ campaign: c }: { campaign: Campaign }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [subject, setSubject] = useState(c.subject ?? '');
  const [days, setDays] = useState('');
  const resend = useMutation({
    mutationFn: async () => {
      const draft = await resendCampaign(c.id, { subject: subject.trim() || undefined });
      const n = Number(days);
      if (days.trim() && n > 0)
        await scheduleCampaign(draft.id, {
          delivery: 'scheduled',
          scheduled_at: new Date(Date.now() + n * 86_400_000).toISOString(),
        });
      return draft;
    },
    onSuccess: async (draft) => {
      await client.invalidateQueries({ queryKey: campaignKeys.all });
      navigate(`/app/campaigns/${draft.id}`);
    },
  });
  if (!open)
    return (
      <button type="button" className="secondary" onClick={() => setOpen(true)}>
        Resend to non-openers
      </button>
    );
  return (
    <form
      className="inline-form"
      aria-label="Resend to non-openers"
      onSubmit={(e) => {
        e.preventDefault();
        resend.mutate();
      }}
    >
      <label>
        Subject <input value={subject} onChange={(e) => setSubject(e.target.value)} />
      </label>
      <label>
        Days later (empty: review the draft first){' '}
        <input type="number" min={1} max={30} value={days} onChange={(e) => setDays(e.target.value)} />
      </label>
      <button type="submit" disabled={resend.isPending}>
        Create resend
      </button>
      <button type="button" className="secondary" onClick={() => setOpen(false)}>
        Close
      </button>
      <Alert error={resend.error} />
    </form>
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
      const saved = await updateCampaign(current.id, {
        ...draft,
        preview_text: draft.preview_text || undefined,
        from_name: draft.from_name || undefined,
        from_email: draft.from_email || undefined,
        reply_to: draft.reply_to || undefined,
        ab_test: abTestBody(draft.ab_test),
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

function Sent({ campaign: c, timezone, canEdit }: { campaign: Campaign; timezone: string; canEdit: boolean }) {
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
      {c.ab_test && <AbTestReport campaign={c} canEdit={canEdit} />}
      {(c.status === 'sent' ||
        c.status === 'sending' ||
        c.status === 'paused' ||
        (c.status === 'cancelled' && c.sent > 0)) && <Report id={c.id} live={c.status === 'sending'} />}
      {(c.status === 'scheduled' || c.status === 'draft') && <Preview campaignId={c.id} />}
    </>
  );
}
