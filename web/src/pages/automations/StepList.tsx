// A list of steps, the automation's own or a condition's branch: each step in a card with its number,
// Move up / Move down / Remove, and its settings; a step type to add at the end. A problem the server
// found with a step that no field of its card shows is written at the bottom of the card. A condition's
// card holds its two branches, each a step list again (here, so the recursion stays in one file).
import { useState } from 'react';
import { withoutKey } from '../../ui.tsx';
import { useBuilder, type Errors, type StepProps } from './context.ts';
import { blankStep, STEP_LABELS, STEP_TYPES, stepName, type StepDraft, type StepType } from './model.ts';
import { StepBody, SHOWN_FIELDS } from './StepFields.tsx';

/** Messages about the step at `path` that none of its fields shows (and none of its branches' steps). */
function leftover(errors: Errors, path: string, type: StepType): string[] {
  return Object.entries(errors)
    .filter(([k]) => {
      if (k === path) return true;
      if (!k.startsWith(`${path}.`)) return false;
      const rest = k.slice(path.length + 1);
      if (rest.startsWith('then.') || rest.startsWith('else.')) return false;
      if (type === 'condition' && rest.startsWith('filter')) return false;
      return !SHOWN_FIELDS[type].includes(rest);
    })
    .map(([, m]) => withoutKey(m[0] ?? ''));
}

export function StepList({
  steps,
  path,
  label,
  onChange,
}: {
  steps: StepDraft[];
  /** "steps", or a branch: "steps.1.then" */
  path: string;
  label: string;
  onChange: (next: StepDraft[]) => void;
}) {
  const ctx = useBuilder();
  const [adding, setAdding] = useState<StepType>('send_email');
  // a move, an addition or a removal renumbers the steps after it: their errors no longer point anywhere
  const reshape = (next: StepDraft[]) => {
    ctx.clear(path);
    onChange(next);
  };
  const move = (i: number, by: number) => {
    const next = [...steps];
    const [s] = next.splice(i, 1);
    next.splice(i + by, 0, s!);
    reshape(next);
  };
  return (
    <div className="step-list-wrap">
      {steps.length === 0 ? (
        <p className="muted small-text">No steps here yet.</p>
      ) : (
        <ol className="step-list" aria-label={label}>
          {steps.map((s, i) => {
            const p = `${path}.${i}`;
            const name = stepName(p.replace(/^steps\./, ''));
            const problems = leftover(ctx.errors, p, s.type);
            return (
              <li key={s.key} className={`step-card step-${s.type}`} aria-label={`${name}: ${STEP_LABELS[s.type]}`}>
                <div className="step-head">
                  <span className="step-title">
                    <span className="step-number">{name}</span> {STEP_LABELS[s.type]}
                  </span>
                  {!ctx.readOnly && (
                    <span className="step-tools">
                      <button
                        type="button"
                        className="secondary small"
                        disabled={i === 0}
                        onClick={() => move(i, -1)}
                        aria-label={`Move ${name} up`}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        className="secondary small"
                        disabled={i === steps.length - 1}
                        onClick={() => move(i, 1)}
                        aria-label={`Move ${name} down`}
                      >
                        ↓
                      </button>
                      <button
                        type="button"
                        className="danger-outline small"
                        onClick={() => reshape(steps.filter((_, j) => j !== i))}
                        aria-label={`Remove ${name}`}
                      >
                        Remove
                      </button>
                    </span>
                  )}
                </div>
                <StepBody
                  step={s}
                  path={p}
                  name={name}
                  onChange={(next) => onChange(steps.map((x, j) => (j === i ? next : x)))}
                />
                {s.type === 'condition' && (
                  <Branches
                    step={s}
                    path={p}
                    name={name}
                    onChange={(next) => onChange(steps.map((x, j) => (j === i ? next : x)))}
                  />
                )}
                {problems.map((m) => (
                  <p className="field-error" key={m}>
                    {m}
                  </p>
                ))}
              </li>
            );
          })}
        </ol>
      )}
      {!ctx.readOnly && (
        <div className="add-step">
          <label>
            <span className="visually-hidden">Type of the new step in {label}</span>
            <select value={adding} onChange={(e) => setAdding(e.target.value as StepType)}>
              {STEP_TYPES.map((t) => (
                <option key={t} value={t}>
                  {STEP_LABELS[t]}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="secondary small"
            aria-label={`Add a step to ${label}`}
            onClick={() => reshape([...steps, blankStep(adding, ctx.sender)])}
          >
            Add step
          </button>
        </div>
      )}
    </div>
  );
}

/** A condition's "then" and "else" steps, under its rules. */
function Branches({ step, path, name, onChange }: StepProps<Extract<StepDraft, { type: 'condition' }>>) {
  return (
    <div className="branches">
      <div className="branch branch-then">
        <h4>Then (they match)</h4>
        <StepList
          steps={step.then}
          path={`${path}.then`}
          label={`Then of ${name}`}
          onChange={(then) => onChange({ ...step, then })}
        />
      </div>
      <div className="branch branch-else">
        <h4>Else (they don’t)</h4>
        <StepList
          steps={step.else}
          path={`${path}.else`}
          label={`Else of ${name}`}
          onChange={(otherwise) => onChange({ ...step, else: otherwise })}
        />
      </div>
    </div>
  );
}
