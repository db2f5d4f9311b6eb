// The rule builder, for a new segment and for editing a saved one: a name, match all / any, flat rules
// whose operators are the ones the chosen field's kind takes (the server's table), and the live count of
// the draft. A saved filter with nested groups (made through the API) keeps its rules: only the name changes.
import { useState, type FormEvent } from 'react';
import type { Audience } from '../../api/audience.ts';
import { ApiError } from '../../api/client.ts';
import { Alert, Field, fieldError, plural, withoutKey } from '../../ui.tsx';
import { useDraftCount } from './liveCount.ts';
import { fromRule, isComplete, isFlat, OP_LABELS, toRule, type RuleDraft, type WireFilter } from './rules.ts';
import { ValueInput } from './ValueInput.tsx';

export interface SegmentDraft {
  name: string;
  filter?: WireFilter;
}

export function SegmentBuilder({
  audience,
  initial,
  title,
  submitLabel,
  onSave,
}: {
  audience: Audience;
  initial?: { name: string; filter: WireFilter };
  title: string;
  submitLabel: string;
  /** true: start over with an empty builder (after creating one) */
  onSave: (draft: SegmentDraft) => Promise<boolean | void>;
}) {
  const first = audience.fields[0]!;
  const kindOf = (field: string) => audience.fields.find((f) => f.field === field)?.kind ?? 'text';
  const opsOf = (field: string) => audience.operators[kindOf(field)] ?? [];
  const blank = (): RuleDraft => ({ field: first.field, operator: opsOf(first.field)[0]!, value: '' });
  const flat = !initial || isFlat(initial.filter);
  const [name, setName] = useState(initial?.name ?? '');
  const [match, setMatch] = useState<'all' | 'any'>(initial?.filter.match ?? 'all');
  const [rules, setRules] = useState<RuleDraft[]>(
    initial && isFlat(initial.filter) ? initial.filter.rules.map(fromRule) : [blank()],
  );
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const filter: WireFilter | undefined = !flat
    ? initial!.filter
    : isComplete(rules)
      ? { match, rules: rules.map((r) => toRule(r, kindOf(r.field))) }
      : undefined;
  const count = useDraftCount(filter);

  const change = (i: number, patch: Partial<RuleDraft>) => {
    setSaved(false);
    setRules((rs) =>
      rs.map((r, j) => {
        if (j !== i) return r;
        const next = { ...r, ...patch };
        if (patch.field) next.operator = opsOf(patch.field)[0]!;
        if (patch.field || (patch.operator && !sameValueShape(r.operator, patch.operator))) next.value = '';
        return next;
      }),
    );
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      const reset = await onSave(
        flat ? { name, filter: { match, rules: rules.map((r) => toRule(r, kindOf(r.field))) } } : { name },
      );
      if (reset) {
        setName('');
        setMatch('all');
        setRules([blank()]);
      } else setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  const fields = error instanceof ApiError ? error.fields : {};
  const ruleProblem = (i: number) => Object.entries(fields).find(([k]) => k.startsWith(`filter.rules.${i}.`))?.[1]?.[0];
  const id = title.toLowerCase().replace(/[^a-z]+/g, '-');
  return (
    <form className="card segment-builder" onSubmit={submit} noValidate aria-labelledby={`${id}title`}>
      <h2 id={`${id}title`}>{title}</h2>
      <Alert error={error} shown={['name', ...Object.keys(fields).filter((k) => k.startsWith('filter.rules.'))]} />
      {saved && <Alert kind="success">Segment saved.</Alert>}
      <Field label="Segment name" error={fieldError(error, 'name')}>
        {(fid, d) => (
          <input
            id={fid}
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setSaved(false);
            }}
            required
            aria-describedby={d}
          />
        )}
      </Field>
      {flat ? (
        <fieldset>
          <legend>
            Subscribers matching{' '}
            <select
              aria-label="Match"
              value={match}
              onChange={(e) => {
                setMatch(e.target.value as 'all' | 'any');
                setSaved(false);
              }}
              className="inline"
            >
              <option value="all">all</option>
              <option value="any">any</option>
            </select>{' '}
            of these rules
          </legend>
          {rules.map((r, i) => (
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
                {opsOf(r.field).map((op) => (
                  <option key={op} value={op}>
                    {OP_LABELS[op] ?? op}
                  </option>
                ))}
              </select>
              <ValueInput
                kind={kindOf(r.field)}
                operator={r.operator}
                value={r.value}
                audience={audience}
                onChange={(value) => change(i, { value })}
              />
              {rules.length > 1 && (
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => {
                    setRules((rs) => rs.filter((_, j) => j !== i));
                    setSaved(false);
                  }}
                  aria-label={`Remove rule ${i + 1}`}
                >
                  Remove
                </button>
              )}
              {ruleProblem(i) && <p className="field-error">{withoutKey(ruleProblem(i)!)}</p>}
            </div>
          ))}
          <button type="button" className="secondary small" onClick={() => setRules((rs) => [...rs, blank()])}>
            Add rule
          </button>
        </fieldset>
      ) : (
        <>
          <p className="muted">
            This segment has nested rule groups, made through the API. The builder edits flat rules only, so its rules
            are shown here and kept as they are; change them with <code>update_segment</code> or{' '}
            <code>PUT /segments/{'{id}'}</code>.
          </p>
          <pre className="filter-json">{JSON.stringify(initial!.filter, null, 2)}</pre>
        </>
      )}
      <p className="live-count" aria-live="polite">
        {countText(filter, count.data?.count, count.error)}
        {count.isFetching && <span className="muted"> · counting…</span>}
      </p>
      <button type="submit">{submitLabel}</button>
    </form>
  );
}

function countText(filter: WireFilter | undefined, count: number | undefined, error: unknown): string {
  if (!filter) return 'Finish each rule to see how many subscribers match.';
  if (error instanceof ApiError && Object.keys(error.fields).length)
    return `Not counted: ${withoutKey(Object.values(error.fields)[0]![0]!)}`;
  if (error) return 'The count is not available right now.';
  if (count === undefined) return 'Counting…';
  return `${plural(count, 'subscriber')} ${count === 1 ? 'matches' : 'match'} now.`;
}

/** Switching between operators that take the same kind of value keeps what was typed. */
function sameValueShape(a: string, b: string): boolean {
  const shape = (op: string) =>
    op === 'is_set' || op === 'is_not_set'
      ? 'none'
      : op === 'in' || op === 'not_in'
        ? 'list'
        : op === 'within_last_days'
          ? 'days'
          : 'one';
  return shape(a) === shape(b);
}
