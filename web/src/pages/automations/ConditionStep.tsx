// A condition step: subscribers matching all / any of some rules (the segment rules: fields, operators and
// groups from /app/api/audience) go on with the "then" steps, the others with the "else" steps; each
// branch is a step list of its own, which StepList shows under this card's rules. A filter with nested
// rule groups, made through the API, is kept as it is and shown read-only.
import type { Audience } from '../../api/audience.ts';
import { inputTypeFor, OP_LABELS, takesList, takesNoValue } from '../segments/rules.ts';
import { errorAt, useBuilder, type StepProps } from './context.ts';
import type { Match, RuleDraft, StepDraft } from './model.ts';

type ConditionDraft = Extract<StepDraft, { type: 'condition' }>;

export function ConditionStep({ step, path, name, onChange }: StepProps<ConditionDraft>) {
  const { errors, clear, audience, readOnly } = useBuilder();
  const fields = audience?.fields ?? [];
  const kindOf = (field: string) => fields.find((f) => f.field === field)?.kind ?? 'text';
  const firstOp = (field: string) => audience?.operators[kindOf(field)]?.[0] ?? 'eq';
  const update = (patch: Partial<ConditionDraft>) => {
    clear(`${path}.filter`);
    onChange({ ...step, ...patch });
  };
  const changeRule = (i: number, patch: Partial<RuleDraft>) =>
    update({
      rules: step.rules.map((r, j) => {
        if (j !== i) return r;
        const next = { ...r, ...patch };
        if (patch.field) next.operator = firstOp(patch.field);
        if (patch.field || patch.operator) next.value = '';
        return next;
      }),
    });
  const filterProblems = Object.entries(errors)
    .filter(([k]) => k.startsWith(`${path}.filter`) && !/\.filter\.rules\.\d+/.test(k))
    .map(([k]) => errorAt(errors, k)![0]!);
  return (
    <>
      {step.nested ? (
        <p className="muted small-text">
          This condition uses nested rule groups (made through the API):{' '}
          <code className="break">{JSON.stringify(step.nested)}</code>
        </p>
      ) : (
        <fieldset className="plain" disabled={readOnly}>
          <legend>
            Subscribers who match{' '}
            <select
              aria-label={`Match (${name})`}
              className="inline"
              value={step.match}
              onChange={(e) => update({ match: e.target.value as Match })}
            >
              <option value="all">all</option>
              <option value="any">any</option>
            </select>{' '}
            of these rules
          </legend>
          {step.rules.map((r, i) => {
            const kind = kindOf(r.field);
            const problem = Object.entries(errors).find(([k]) => k.startsWith(`${path}.filter.rules.${i}.`))?.[0];
            const label = `rule ${i + 1} of ${name}`;
            return (
              <div className="rule" key={i} role="group" aria-label={`Rule ${i + 1} of ${name}`}>
                <select
                  aria-label={`Field of ${label}`}
                  value={r.field}
                  onChange={(e) => changeRule(i, { field: e.target.value })}
                >
                  {fields.map((f) => (
                    <option key={f.field} value={f.field}>
                      {f.label}
                    </option>
                  ))}
                </select>
                <select
                  aria-label={`Operator of ${label}`}
                  value={r.operator}
                  onChange={(e) => changeRule(i, { operator: e.target.value })}
                >
                  {(audience?.operators[kind] ?? []).map((op) => (
                    <option key={op} value={op}>
                      {OP_LABELS[op] ?? op}
                    </option>
                  ))}
                </select>
                <RuleValue
                  label={`Value of ${label}`}
                  kind={kind}
                  rule={r}
                  audience={audience}
                  onChange={(value) => changeRule(i, { value })}
                />
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => update({ rules: step.rules.filter((_, j) => j !== i) })}
                  aria-label={`Remove ${label}`}
                >
                  Remove
                </button>
                {problem && <p className="field-error">{errorAt(errors, problem)![0]}</p>}
              </div>
            );
          })}
          {fields.length > 0 && (
            <button
              type="button"
              className="secondary small"
              aria-label={`Add a rule to ${name}`}
              onClick={() =>
                update({
                  rules: [...step.rules, { field: fields[0]!.field, operator: firstOp(fields[0]!.field), value: '' }],
                })
              }
            >
              Add rule
            </button>
          )}
        </fieldset>
      )}
      {filterProblems.map((m) => (
        <p className="field-error" key={m}>
          {m}
        </p>
      ))}
    </>
  );
}

function RuleValue({
  label,
  kind,
  rule,
  audience,
  onChange,
}: {
  label: string;
  kind: string;
  rule: RuleDraft;
  audience: Audience | undefined;
  onChange: (v: string) => void;
}) {
  const { operator, value } = rule;
  if (takesNoValue(operator)) return null;
  const list = takesList(operator);
  const choices =
    kind === 'status' && !list
      ? audience?.statuses.map((s) => [s, s] as const)
      : kind === 'group' && !list
        ? audience?.groups.map((g) => [g.id, g.name] as const)
        : kind === 'boolean'
          ? ([
              ['true', 'true'],
              ['false', 'false'],
            ] as const)
          : undefined;
  if (choices)
    return (
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {choices.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    );
  const type = inputTypeFor(operator, kind);
  return (
    <input
      aria-label={label}
      type={type}
      value={value}
      placeholder={list ? 'comma-separated values' : ''}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
