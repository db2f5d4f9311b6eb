// The small inputs the block settings are made of: a labelled number, a colour that can be cleared, a
// select. Each keeps its label next to it, so the settings read well to a screen reader and on a phone.
import { useId, type ReactNode } from 'react';

export function NumberInput({
  label,
  value,
  onChange,
  min,
  max,
  step = 1,
  placeholder,
}: {
  label: string;
  value: number | undefined;
  onChange: (v: number | undefined) => void;
  min: number;
  max: number;
  step?: number;
  placeholder?: string;
}) {
  const id = useId();
  return (
    <span className="be-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        min={min}
        max={max}
        step={step}
        value={value ?? ''}
        placeholder={placeholder}
        onChange={(e) => {
          if (e.target.value === '') return onChange(undefined);
          const n = Number(e.target.value);
          // out-of-range numbers are brought into range: the server refuses them, the user meant the edge
          if (Number.isFinite(n)) onChange(Math.min(max, Math.max(min, Math.round(n))));
        }}
      />
    </span>
  );
}

export function ColorInput({
  label,
  value,
  onChange,
  fallback = '#000000',
  optional = true,
}: {
  label: string;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
  /** shown in the swatch while nothing is set */
  fallback?: string;
  optional?: boolean;
}) {
  const id = useId();
  return (
    <span className="be-field be-color-field">
      <label htmlFor={id}>{label}</label>
      <span className="be-color-row">
        <input id={id} type="color" value={value ?? fallback} onChange={(e) => onChange(e.target.value)} />
        {optional && value && (
          <button
            type="button"
            className="be-tool"
            aria-label={`Clear ${label.toLowerCase()}`}
            onClick={() => onChange(undefined)}
          >
            ×
          </button>
        )}
        {optional && !value && <span className="muted small-text">default</span>}
      </span>
    </span>
  );
}

export function SelectInput<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T | undefined;
  options: { value: T | ''; label: string }[];
  onChange: (v: T | undefined) => void;
}) {
  const id = useId();
  return (
    <span className="be-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange((e.target.value || undefined) as T | undefined)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </span>
  );
}

export function TextInput({
  label,
  value,
  onChange,
  type = 'text',
  placeholder,
  invalid,
  hint,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  type?: string;
  placeholder?: string;
  invalid?: boolean;
  hint?: ReactNode;
}) {
  const id = useId();
  return (
    <span className="be-field be-wide">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        placeholder={placeholder}
        aria-invalid={invalid || undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </span>
  );
}
