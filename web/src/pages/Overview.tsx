// Overview: the account's subscriber counts against its plan limit (subscribers.stats).
import { api, type Me } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, Loading, useLoad } from '../ui.tsx';

interface Stats {
  total: number;
  active: number;
  unsubscribed: number;
  bounced: number;
  limit: number;
  usage_percentage: number;
}

export function Overview({ me }: { me: Me }) {
  const { data, error } = useLoad(() => api.get<Stats>('/overview'), []);
  return (
    <section>
      <h1>Overview</h1>
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
          <div className="card">
            <h2>Plan usage</h2>
            <p>
              {data.total.toLocaleString()} of {data.limit.toLocaleString()} subscribers ({data.usage_percentage}%)
            </p>
            <div
              className="meter"
              role="meter"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.min(100, data.usage_percentage)}
              aria-label="Plan usage"
            >
              <span style={{ width: `${Math.min(100, data.usage_percentage)}%` }} />
            </div>
          </div>
          <div className="card">
            <h2>Get started</h2>
            <ul className="steps">
              <li>
                <Link href="/app/keys">Create an API key</Link> for the REST API and the MCP tool endpoint.
              </li>
              <li>
                <Link href="/app/imports">Import subscribers</Link> from a CSV file.
              </li>
              <li>
                <Link href="/app/settings">Set your sender defaults</Link> for campaigns.
              </li>
            </ul>
          </div>
        </>
      )}
    </section>
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
