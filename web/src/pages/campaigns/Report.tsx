// How a sent campaign did: totals (unique and all opens and clicks, unsubscribes, bounces, complaints),
// opens and clicks over time, clicks per link and who clicked each, people by email client and device, the
// ledger per mail provider, and
// every recipient with their state and the SMTP reply, filterable and downloadable as CSV, and the bounces
// and complaints that came back later by mail. The open rate
// leaves out privacy proxies' pixel loads, and says so.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import {
  campaignKeys,
  getReport,
  listLinkRecipients,
  listProviders,
  listRecipients,
  recipientsCsvUrl,
} from '../../api/campaigns.ts';
import { LineChart } from '../../lib/LineChart.tsx';
import { LateFeedbackList } from './LateFeedback.tsx';
import { DataTable, type ColumnDef, pagingOf } from '../../lib/table.tsx';
import { Alert, Badge, formatDate, Loading, Meter, percent, plural } from '../../ui.tsx';
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
    queryKey: campaignKeys.report(id),
    queryFn: () => getReport(id),
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
        <Clients report={report.data} />
        <Providers id={id} live={live} />
        <LateFeedbackList id={id} live={live} />
      </section>
      <Recipients id={id} live={live} />
    </>
  );
}

type Share = { key: string; label: string; opens: number; clicks: number };
const DEVICE_WORDS: Record<ReportData['devices'][number]['type'], string> = {
  desktop: 'Desktop',
  mobile: 'Mobile',
  tablet: 'Tablet',
  unknown: 'Unknown (hidden by a mail provider’s image proxy)',
};

const shareColumns = (what: string, total: number): ColumnDef<Share>[] => [
  { header: what, accessorKey: 'label' },
  {
    header: 'Opened',
    accessorKey: 'opens',
    cell: ({ row: { original: r } }) => (
      <div className="share">
        <span>
          {r.opens.toLocaleString()} <span className="muted small-text">{percent(total ? r.opens / total : null)}</span>
        </span>
        <Meter value={total ? (r.opens / total) * 100 : 0} label={`${r.label}: share of people who opened`} />
      </div>
    ),
  },
  { header: 'Clicked', accessorKey: 'clicks' },
];

/** People who opened or clicked, by email client and by device, as tables with a bar for each one's share. */
function Clients({ report }: { report: ReportData }) {
  const total = report.clients.reduce((n, c) => n + c.opens, 0);
  const clients = report.clients.map((c) => ({ ...c, key: c.name, label: c.name }));
  const devices = report.devices.map((d) => ({ ...d, key: d.type, label: DEVICE_WORDS[d.type] ?? d.type }));
  return (
    <>
      <p className="muted small-text">
        Each person who opened or clicked counts once, under the email client and device of their first open or click,
        as its user agent names them (the user agent itself is not kept). Privacy proxies’ opens are left out.
      </p>
      <div className="split">
        <ShareTable title="Email clients" what="Email client" rows={clients} total={total} />
        <ShareTable title="Devices" what="Device" rows={devices} total={total} />
      </div>
    </>
  );
}

function ShareTable({ title, what, rows, total }: { title: string; what: string; rows: Share[]; total: number }) {
  const columns = useMemo(() => shareColumns(what, total), [what, total]);
  return (
    <div>
      <h3>{title}</h3>
      <DataTable label={title} columns={columns} rows={rows} empty="Nobody opened yet." rowKey={(r) => r.key} />
    </div>
  );
}

function LinkClickers({ id, link, onClose }: { id: string; link: Link; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: campaignKeys.linkRecipients(id, link.link_id, page),
    queryFn: () => listLinkRecipients(id, link.link_id, { page, per_page: 25 }),
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
        paging={pagingOf(list.data?.pagination, setPage)}
      />
    </div>
  );
}

function Providers({ id, live }: { id: string; live: boolean }) {
  const list = useQuery({
    queryKey: campaignKeys.providers(id),
    queryFn: () => listProviders(id),
    // as often as the progress beside it, so "sent" here keeps up with "delivered" there during a send
    refetchInterval: live ? 2000 : false,
  });
  const { refetch } = list;
  // the send just finished: the last counts, not those of up to one interval before
  useEffect(() => {
    if (!live) void refetch();
  }, [live, refetch]);
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
  return <LineChart title="Opens and clicks per hour" times={times} series={series} fromZero />;
}

function Recipients({ id, live }: { id: string; live: boolean }) {
  const [state, setState] = useState('');
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: campaignKeys.recipients(id, state, page),
    queryFn: () => listRecipients(id, { state, page, per_page: 25 }),
    refetchInterval: live ? 3000 : false,
  });
  return (
    <section aria-labelledby="recipients-title">
      <div className="title-row">
        <h2 id="recipients-title">Recipients</h2>
        <a className="button secondary" href={recipientsCsvUrl(id, state)} download>
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
        {list.data && <span className="muted">{plural(list.data.pagination.total_count, 'recipient')}</span>}
      </div>
      <DataTable
        label="Recipients"
        columns={RECIPIENT_COLUMNS}
        rows={list.data?.recipients}
        error={list.error}
        empty={state ? `No recipient is ${state}.` : 'No recipients yet.'}
        rowKey={(r) => r.subscriber_id}
        paging={pagingOf(list.data?.pagination, setPage)}
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
