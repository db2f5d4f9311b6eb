// How a sent campaign did: totals (unique and all opens and clicks, unsubscribes, bounces, complaints),
// opens and clicks over time, clicks per link and who clicked each, the ledger per mail provider, and
// every recipient with their state and the SMTP reply, filterable and downloadable as CSV. The open rate
// leaves out privacy proxies' pixel loads, and says so.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, qs } from '../../api.ts';
import { LineChart } from '../../lib/LineChart.tsx';
import { DataTable, lastPageOf, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Badge, formatDate, Loading, percent, plural } from '../../ui.tsx';
import type { LinkClicker, ProviderRow, Recipient, Report as ReportData } from './model.ts';

const STATES = ['queued', 'sending', 'sent', 'failed', 'interrupted', 'skipped'];
const STATE_TONE: Record<string, 'good' | 'bad' | 'warn' | 'neutral'> = {
  sent: 'good',
  failed: 'bad',
  interrupted: 'warn',
  queued: 'neutral',
};

type Link = ReportData['links'][number];
const linkColumns = (show: (l: Link) => void): ColumnDef<Link>[] => [
  {
    header: 'Link',
    accessorKey: 'url',
    cell: (c) => (
      <a href={c.getValue() as string} target="_blank" rel="noreferrer" className="break">
        {c.getValue() as string}
      </a>
    ),
  },
  { header: 'Unique clicks', accessorKey: 'unique_clicks' },
  { header: 'Clicks', accessorKey: 'clicks' },
  {
    id: 'who',
    header: 'Who clicked',
    cell: ({ row: { original: l } }) =>
      l.unique_clicks > 0 ? (
        <button type="button" className="secondary small" onClick={() => show(l)}>
          Who clicked
        </button>
      ) : (
        '—'
      ),
  },
];

const CLICKER_COLUMNS: ColumnDef<LinkClicker>[] = [
  { header: 'Email', accessorKey: 'email' },
  { header: 'First click', accessorKey: 'first_clicked_at', cell: (c) => formatDate(c.getValue() as string) },
  { header: 'Clicks', accessorKey: 'clicks' },
];

const PROVIDER_COLUMNS: ColumnDef<ProviderRow>[] = [
  {
    header: 'Provider',
    accessorKey: 'provider',
    cell: ({ row: { original: p } }) => (
      <>
        {p.provider}
        {(p.domains.length > 1 || p.domains[0]?.domain !== p.provider) && (
          <span className="muted small-text">
            {' '}
            {p.domains
              .slice(0, 4)
              .map((d) => d.domain)
              .join(', ')}
            {p.domains.length > 4 && ` +${p.domains.length - 4}`}
          </span>
        )}
      </>
    ),
  },
  { header: 'Recipients', accessorKey: 'recipients' },
  { header: 'Sent', accessorKey: 'sent' },
  { header: 'Deferred', accessorKey: 'deferred' },
  { header: 'Bounced', accessorKey: 'bounced' },
  { header: 'Failed', accessorKey: 'failed' },
  { header: 'Opened (people)', accessorKey: 'human_opened' },
  { header: 'Clicked', accessorKey: 'clicked' },
];

// what each failure reason of a failed recipient means (docs/campaigns.md, What each SMTP reply does)
const FAILURE_WORDS: Record<string, string> = {
  bounced: 'The mailbox does not exist: the subscriber is now bounced',
  blocked: 'Refused by the receiving server’s policy (5.7.x); the subscriber stays active',
  rejected: 'Refused for good by the receiving server',
  expired: 'Temporarily refused on every attempt until the attempts ran out',
  error: 'No message could be composed, or no server answered',
};

const RECIPIENT_COLUMNS: ColumnDef<Recipient>[] = [
  { header: 'Email', accessorKey: 'email' },
  {
    header: 'State',
    accessorKey: 'state',
    cell: (c) => <Badge tone={STATE_TONE[c.getValue() as string]}>{c.getValue() as string}</Badge>,
  },
  {
    header: 'Why it failed',
    accessorKey: 'failure',
    cell: (c) => {
      const failure = c.getValue() as string | null;
      return failure ? <span title={FAILURE_WORDS[failure]}>{failure}</span> : '—';
    },
  },
  {
    header: 'SMTP reply',
    accessorKey: 'smtp_reply',
    cell: (c) => <span className="mono break">{(c.getValue() as string | null) ?? '—'}</span>,
  },
  { header: 'Updated', accessorKey: 'updated_at', cell: (c) => formatDate(c.getValue() as string) },
];

export function Report({ id, live }: { id: string; live: boolean }) {
  const report = useQuery({
    queryKey: ['campaigns', 'report', id],
    queryFn: () => api.get<ReportData>(`/campaigns/${id}/report`),
    refetchInterval: live ? 5000 : 30_000,
  });
  const [link, setLink] = useState<Link | null>(null);
  const linkCols = useMemo(() => linkColumns(setLink), []);
  if (report.error) return <Alert error={report.error} />;
  if (!report.data) return <Loading />;
  const { stats, timeline, links } = report.data;
  const rate = (n: number) => (stats.sent ? n / stats.sent : null);
  return (
    <>
      <section aria-labelledby="report-title">
        <h2 id="report-title">Report</h2>
        <div className="stats">
          <Stat label="Sent" value={stats.sent} />
          <Stat
            label="Opened by people"
            value={stats.unique_human_opens}
            note={`${percent(rate(stats.unique_human_opens))} · ${stats.opens} opens in all`}
          />
          <Stat
            label="Unique clicks"
            value={stats.unique_clicks}
            note={`${percent(rate(stats.unique_clicks))} · ${stats.clicks} in all`}
          />
          <Stat label="Unsubscribes" value={stats.unsubscribes} note={percent(rate(stats.unsubscribes))} />
          <Stat label="Bounces" value={stats.bounces} note={percent(rate(stats.bounces))} />
          <Stat label="Complaints" value={stats.complaints} note={percent(rate(stats.complaints))} />
          <Stat label="Suppressed" value={report.data.suppressed_count} note="left out: on the suppression list" />
        </div>
        <p className="muted small-text" data-testid="open-rate-note">
          The open rate counts people only: {plural(stats.machine_opens, 'open')} by privacy proxies (such as Apple Mail
          Privacy Protection, which loads every image when a message arrives) {stats.machine_opens === 1 ? 'is' : 'are'}{' '}
          left out. Counting them, {plural(stats.unique_opens, 'email was', 'emails were')} opened.
        </p>
        <div className="card">
          <h3>Opens and clicks over time</h3>
          {timeline.length === 0 ? <p className="muted">No opens or clicks yet.</p> : <Timeline timeline={timeline} />}
        </div>
        <h3>Clicks per link</h3>
        <DataTable
          label="Clicks per link"
          columns={linkCols}
          rows={links}
          empty="No link was clicked yet."
          rowKey={(l) => l.link_id}
        />
        {link && <LinkClickers id={id} link={link} onClose={() => setLink(null)} />}
        <Providers id={id} live={live} />
      </section>
      <Recipients id={id} live={live} />
    </>
  );
}

function LinkClickers({ id, link, onClose }: { id: string; link: Link; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['campaigns', 'link-recipients', id, link.link_id, page],
    queryFn: () =>
      api.get<{ recipients: LinkClicker[]; page: number; per_page: number; total: number }>(
        `/campaigns/${id}/links/${link.link_id}/recipients${qs({ page, per_page: 25 })}`,
      ),
  });
  return (
    <div className="card" aria-labelledby="clickers-title">
      <div className="title-row">
        <h3 id="clickers-title" className="break">
          Who clicked {link.url}
        </h3>
        <button type="button" className="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      <DataTable
        label="Who clicked"
        columns={CLICKER_COLUMNS}
        rows={list.data?.recipients}
        error={list.error}
        empty="Nobody clicked this link yet."
        rowKey={(r) => r.subscriber_id}
        paging={list.data && { page, lastPage: lastPageOf(list.data.total, list.data.per_page), onPage: setPage }}
      />
    </div>
  );
}

function Providers({ id, live }: { id: string; live: boolean }) {
  const list = useQuery({
    queryKey: ['campaigns', 'providers', id],
    queryFn: () => api.get<{ providers: ProviderRow[] }>(`/campaigns/${id}/providers`),
    refetchInterval: live ? 10_000 : false,
  });
  return (
    <>
      <h3>By provider</h3>
      <p className="muted small-text">
        Recipients grouped by the provider of their address (Gmail, Outlook, Yahoo, iCloud; other domains each on their
        own). Deferred: put back in the queue after a temporary refusal. Opened counts people only.
      </p>
      <DataTable
        label="By provider"
        columns={PROVIDER_COLUMNS}
        rows={list.data?.providers}
        error={list.error}
        empty="No recipients yet."
        rowKey={(p) => p.provider}
      />
    </>
  );
}

function Timeline({ timeline }: { timeline: ReportData['timeline'] }) {
  const { times, series } = useMemo(
    () => ({
      times: timeline.map((t) => Date.parse(t.at) / 1000),
      series: [
        { label: 'Opens', values: timeline.map((t) => t.opens), color: '#166534' },
        { label: 'Clicks', values: timeline.map((t) => t.clicks), color: '#2563eb' },
      ],
    }),
    [timeline],
  );
  return <LineChart title="Opens and clicks per hour" times={times} series={series} />;
}

function Recipients({ id, live }: { id: string; live: boolean }) {
  const [state, setState] = useState('');
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['campaigns', 'recipients', id, state, page],
    queryFn: () =>
      api.get<{ recipients: Recipient[]; page: number; per_page: number; total: number }>(
        `/campaigns/${id}/recipients${qs({ state, page, per_page: 25 })}`,
      ),
    refetchInterval: live ? 3000 : false,
  });
  return (
    <section aria-labelledby="recipients-title">
      <div className="title-row">
        <h2 id="recipients-title">Recipients</h2>
        <a className="button secondary" href={`/app/api/campaigns/${id}/recipients.csv${qs({ state })}`} download>
          Download CSV
        </a>
      </div>
      <div className="toolbar">
        <label>
          <span className="visually-hidden">Recipient state</span>
          <select
            value={state}
            onChange={(e) => {
              setState(e.target.value);
              setPage(1);
            }}
          >
            <option value="">All states</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {list.data && <span className="muted">{plural(list.data.total, 'recipient')}</span>}
      </div>
      <DataTable
        label="Recipients"
        columns={RECIPIENT_COLUMNS}
        rows={list.data?.recipients}
        error={list.error}
        empty={state ? `No recipient is ${state}.` : 'No recipients yet.'}
        rowKey={(r) => r.subscriber_id}
        paging={list.data && { page, lastPage: lastPageOf(list.data.total, list.data.per_page), onPage: setPage }}
      />
    </section>
  );
}

export function Stat({ label, value, note }: { label: string; value: number; note?: string }) {
  return (
    <div className="stat">
      <span className="stat-value">{value.toLocaleString()}</span>
      <span className="stat-label">{label}</span>
      {note && <span className="stat-note">{note}</span>}
    </div>
  );
}
