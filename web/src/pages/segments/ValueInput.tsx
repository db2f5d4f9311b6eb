// The value box of one rule, shaped by the field's kind and the operator: a choice for statuses, groups
// and booleans, a number or a date input where the rule compares those, comma-separated text for lists.
import type { Audience } from '../../api/audience.ts';
import { inputTypeFor, takesList, takesNoValue } from './rules.ts';

export function ValueInput({
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
  if (takesNoValue(operator)) return <span className="muted">—</span>;
  const list = takesList(operator);
  const choose = (placeholder: string, options: { value: string; label: string }[]) => (
    <select aria-label="Value" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{placeholder}</option>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
  if (kind === 'status' && !list)
    return choose(
      'Choose…',
      audience.statuses.map((s) => ({ value: s, label: s })),
    );
  if (kind === 'group' && !list)
    return choose(
      'Choose a group…',
      audience.groups.map((g) => ({ value: g.id, label: g.name })),
    );
  if (kind === 'boolean')
    return choose('Choose…', [
      { value: 'true', label: 'true' },
      { value: 'false', label: 'false' },
    ]);
  const type = inputTypeFor(operator, kind);
  return (
    <input
      aria-label="Value"
      type={type}
      value={value}
      placeholder={list ? (kind === 'group' ? 'group ids, comma-separated' : 'comma-separated values') : ''}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
