// Segments: the account's saved audiences with their live counts, and a rule builder (match all / any
// of flat rules; nested groups are available through the API). The fields, operators and groups offered
// come from /app/api/audience, so the page never disagrees with the server's rule table.
import { useState, type FormEvent } from 'react';
import { api, ApiError, qs, type Audience } from '../api.ts';
import { Alert, Field, formatDate, Loading, Pager, useLoad } from '../ui.tsx';

interface Segment {
  id: string;
  name: string;
  filter: { match: 'all' | 'any'; rules: unknown[] };
  subscriber_count: number;
  created_at: string;
}
interface RuleDraft {
  field: string;
  operator: string;
  value: string;
}

const OP_LABELS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  before: 'before',
  after: 'after',
  within_last_days: 'within the last (days)',
  is_set: 'is set',
  is_not_set: 'is not set',
  in: 'is one of',
  not_in: 'is none of',
};

export function Segments({ canEdit }: { canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api.get<{ segments: Segment[]; total: number; per_page: number }>(`/segments${qs({ page })}`),
    [page],
  );
  const audience = useLoad(() => api.get<Audience>('/audience'), []);
  const [error, setError] = useState<unknown>();
  const remove = async (s: Segment) => {
    if (!confirm(`Delete the segment “${s.name}”? Subscribers are not affected.`)) return;
    try {
      await api.del(`/segments/${s.id}`);
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <h1>Segments</h1>
      <p className="muted">
        A segment is a saved filter over your subscribers; campaigns can send to it. Counts are computed live.
      </p>
      {canEdit && audience.data && <Builder audience={audience.data} onCreated={list.reload} />}
      <h2>Saved segments</h2>
      <Alert error={list.error ?? error} />
      {!list.data ? (
        !list.error && <Loading />
      ) : list.data.segments.length === 0 ? (
        <p className="empty">No segments yet.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data" aria-label="Segments">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Subscribers</th>
                  <th scope="col">Rules</th>
                  <th scope="col">Created</th>
                  {canEdit && (
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {list.data.segments.map((s) => (
                  <tr key={s.id}>
                    <td>{s.name}</td>
                    <td>{s.subscriber_count.toLocaleString()}</td>
                    <td className="mono">
                      {s.filter.match} of {s.filter.rules.length}
                    </td>
                    <td>{formatDate(s.created_at)}</td>
                    {canEdit && (
                      <td className="actions">
                        <button
                          type="button"
                          className="danger-outline small"
                          onClick={() => remove(s)}
                          aria-label={`Delete ${s.name}`}
                        >
                          Delete
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} lastPage={Math.max(1, Math.ceil(list.data.total / list.data.per_page))} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function Builder({ audience, onCreated }: { audience: Audience; onCreated: () => void }) {
  const first = audience.fields[0]!;
  const blank = (): RuleDraft => ({ field: first.field, operator: audience.operators[first.kind]![0]!, value: '' });
  const [name, setName] = useState('');
  const [match, setMatch] = useState<'all' | 'any'>('all');
  const [rules, setRules] = useState<RuleDraft[]>([blank()]);
  const [error, setError] = useState<unknown>();
  const kindOf = (field: string) => audience.fields.find((f) => f.field === field)?.kind ?? 'text';
  const change = (i: number, patch: Partial<RuleDraft>) =>
    setRules((rs) =>
      rs.map((r, j) => {
        if (j !== i) return r;
        const next = { ...r, ...patch };
        if (patch.field) next.operator = audience.operators[kindOf(patch.field)]![0]!;
        if (patch.field || patch.operator) next.value = '';
        return next;
      }),
    );

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api.post('/segments', { name, filter: { match, rules: rules.map((r) => toRule(r, kindOf(r.field))) } });
      setName('');
      setRules([blank()]);
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="new-segment-title">
      <h2 id="new-segment-title">New segment</h2>
      <Alert error={error} />
      <Field label="Segment name" error={fields.name}>
        {(id, d) => (
          <input id={id} value={name} onChange={(e) => setName(e.target.value)} required aria-describedby={d} />
        )}
      </Field>
      <fieldset>
        <legend>
          Subscribers matching{' '}
          <select
            aria-label="Match"
            value={match}
            onChange={(e) => setMatch(e.target.value as 'all' | 'any')}
            className="inline"
          >
            <option value="all">all</option>
            <option value="any">any</option>
          </select>{' '}
          of these rules
        </legend>
        {rules.map((r, i) => {
          const kind = kindOf(r.field);
          const problem = Object.entries(fields).find(([k]) => k.startsWith(`filter.rules.${i}.`))?.[1]?.[0];
          return (
            <div className="rule" key={i} role="group" aria-label={`Rule ${i + 1}`}>
              <select aria-label="Field" value={r.field} onChange={(e) => change(i, { field: e.target.value })}>
                {audience.fields.map((f) => (
                  <option key={f.field} value={f.field}>
                    {f.label}
                  </option>
                ))}
              </select>
              <select
                aria-label="Operator"
                value={r.operator}
                onChange={(e) => change(i, { operator: e.target.value })}
              >
                {audience.operators[kind]!.map((op) => (
                  <option key={op} value={op}>
                    {OP_LABELS[op] ?? op}
                  </option>
                ))}
              </select>
              <ValueInput
                kind={kind}
                operator={r.operator}
                value={r.value}
                audience={audience}
                onChange={(value) => change(i, { value })}
              />
              {rules.length > 1 && (
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => setRules((rs) => rs.filter((_, j) => j !== i))}
                  aria-label={`Remove rule ${i + 1}`}
                >
                  Remove
                </button>
              )}
              {problem && <p className="field-error">{problem}</p>}
            </div>
          );
        })}
        <button type="button" className="secondary small" onClick={() => setRules((rs) => [...rs, blank()])}>
          Add rule
        </button>
      </fieldset>
      <button type="submit">Save segment</button>
    </form>
  );
}

function ValueInput({
  kind,
  operator,
  value,
  audience,
  onChange,
}: {
  kind: string;
  operator: string;
  value: string;
  audience: Audience;
  onChange: (v: string) => void;
}) {
  if (operator === 'is_set' || operator === 'is_not_set') return <span className="muted">—</span>;
  const list = operator === 'in' || operator === 'not_in';
  if (kind === 'status' && !list)
    return (
      <select aria-label="Value" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {audience.statuses.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
    );
  if (kind === 'group' && !list)
    return (
      <select aria-label="Value" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose a group…</option>
        {audience.groups.map((g) => (
          <option key={g.id} value={g.id}>
            {g.name}
          </option>
        ))}
      </select>
    );
  if (kind === 'boolean')
    return (
      <select aria-label="Value" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  const type =
    operator === 'within_last_days' || kind === 'number'
      ? 'number'
      : (kind === 'date' || kind === 'created_at') && !list
        ? 'date'
        : 'text';
  return (
    <input
      aria-label="Value"
      type={type}
      value={value}
      placeholder={list ? 'comma-separated values' : ''}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** The wire rule: numbers as numbers, lists split on commas, booleans as booleans, nothing for is_set. */
function toRule(r: RuleDraft, kind: string): { field: string; operator: string; value?: unknown } {
  if (r.operator === 'is_set' || r.operator === 'is_not_set') return { field: r.field, operator: r.operator };
  const one = (v: string): unknown =>
    kind === 'number' || r.operator === 'within_last_days' ? Number(v) : kind === 'boolean' ? v === 'true' : v.trim();
  const value =
    r.operator === 'in' || r.operator === 'not_in'
      ? r.value
          .split(',')
          .map((v) => one(v))
          .filter((v) => v !== '')
      : one(r.value);
  return { field: r.field, operator: r.operator, value };
}
