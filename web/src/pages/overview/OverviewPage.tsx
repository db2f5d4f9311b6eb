// Overview: subscriber counts against the plan limit, growth over the last 30 days, the latest campaigns
// with their rates, and the bounce and complaint rates against what mailbox providers enforce.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { getOverview, overviewKeys, type Stats } from '../../api/overview.ts';
import type { Me } from '../../api/session.ts';
import { LineChart } from '../../lib/LineChart.tsx';
import { DataTable } from '../../lib/table.tsx';
import { Alert, Loading, Meter, percent, plural } from '../../ui.tsx';
import { CAMPAIGN_COLUMNS } from '../campaigns/CampaignsPage.tsx';
import { PageHeader } from '../../lib/PageHeader.tsx';

/** Past these, Gmail and Yahoo start refusing or junking a sender's mail. */
const LIMITS = { complaint: 0.003, bounce: 0.05 };

export function OverviewPage({ me }: { me: Me }) {
  const { data, error } = useQuery({ queryKey: overviewKeys.all, queryFn: getOverview });
  return (
    <section>
      <PageHeader title="Overview" />
      <p className="muted">Welcome, {me.user.name ?? me.user.email}.</p>
      <Alert error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          <div className="stats">
            <Stat label="Subscribers" value={data.total} />
            <Stat label="Active" value={data.active} />
            <Stat label="Unsubscribed" value={data.unsubscribed} />
            <Stat label="Bounced" value={data.bounced} />
          </div>
          {!!data.pending_signups && (
            <p>
              <Link to="/app/forms">{plural(data.pending_signups, 'sign-up')} waiting for confirmation</Link>
            </p>
          )}
          {data.rates && <Health rates={data.rates} />}
          {data.growth && data.growth.length > 0 && <Growth growth={data.growth} />}
          {data.recent_campaigns && (
            <div className="card">
              <div className="title-row">
                <h2>Recent campaigns</h2>
                <Link to="/app/campaigns">All campaigns</Link>
              </div>
              <DataTable
                label="Recent campaigns"
                columns={CAMPAIGN_COLUMNS}
                rows={data.recent_campaigns}
                empty={
                  <>
                    No campaigns yet. <Link to="/app/campaigns/new">Write your first one.</Link>
                  </>
                }
                rowKey={(c) => c.id}
              />
            </div>
          )}
          <div className="card">
            <h2>Plan usage</h2>
            <p>
              {data.total.toLocaleString()} of {plural(data.limit, 'subscriber')} ({data.usage_percentage}%)
            </p>
            <Meter value={data.usage_percentage} label="Plan usage" />
          </div>
          <div className="card">
            <h2>Get started</h2>
            <ul className="steps">
              <li>
                <Link to="/app/keys">Create an API key</Link> for the REST API and the MCP tool endpoint.
              </li>
              <li>
                <Link to="/app/imports">Import subscribers</Link> from a CSV file.
              </li>
              <li>
                <Link to="/app/settings">Set your sender defaults</Link> for campaigns.
              </li>
              <li>
                <Link to="/app/campaigns/new">Write a campaign</Link> and send it.
              </li>
            </ul>
          </div>
        </>
      )}
    </section>
  );
}

function Health({ rates }: { rates: NonNullable<Stats['rates']> }) {
  const bounceHigh = rates.bounce_rate > LIMITS.bounce;
  const complaintHigh = rates.complaint_rate > LIMITS.complaint;
  return (
    <div className="card">
      <h2>Sending health, last 30 days</h2>
      <div className="stats">
        <Stat label="Emails sent" value={rates.sent_30d} />
        <RateStat label="Bounce rate" rate={rates.bounce_rate} limit={LIMITS.bounce} high={bounceHigh} />
        <RateStat label="Complaint rate" rate={rates.complaint_rate} limit={LIMITS.complaint} high={complaintHigh} />
      </div>
      {(bounceHigh || complaintHigh) && (
        <Alert kind="warning">
          {complaintHigh &&
            `Complaints are above ${percent(LIMITS.complaint)}: mailbox providers such as Gmail and Yahoo start sending your mail to spam or refusing it. `}
          {bounceHigh &&
            `Bounces are above ${percent(LIMITS.bounce)}: clean your list (remove old or purchased addresses) before the next send.`}
        </Alert>
      )}
    </div>
  );
}

function Growth({ growth }: { growth: NonNullable<Stats['growth']> }) {
  const { times, series } = useMemo(
    () => ({
      times: growth.map((g) => Date.parse(`${g.day}T12:00:00Z`) / 1000),
      series: [
        { label: 'Subscribers', values: growth.map((g) => g.total), color: '#166534' },
        { label: 'New', values: growth.map((g) => g.new), color: '#2563eb' },
      ],
    }),
    [growth],
  );
  return (
    <div className="card">
      <h2>Subscriber growth, last 30 days</h2>
      <LineChart title="Subscribers and new subscribers per day" times={times} series={series} />
    </div>
  );
}

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <div className="stat">
      <span className="stat-value">{value.toLocaleString()}</span>
      <span className="stat-label">{label}</span>
    </div>
  );
}

function RateStat({ label, rate, limit, high }: { label: string; rate: number; limit: number; high: boolean }) {
  return (
    <div className={high ? 'stat stat-bad' : 'stat'}>
      <span className="stat-value">{percent(rate)}</span>
      <span className="stat-label">{label}</span>
      <span className="stat-note">{high ? `above the ${percent(limit)} limit` : `limit ${percent(limit)}`}</span>
    </div>
  );
}
