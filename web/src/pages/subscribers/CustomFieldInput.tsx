// One custom field's input, fitting its type: text, number, date, or yes / no / not set. Values are kept as
// the input's text; toValue turns them into what the API takes (empty clears the value).
import { Field } from '../../ui.tsx';
import type { CustomField, FieldType } from './model.ts';

export function fromValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  return String(v);
}

export function toValue(type: FieldType, text: string): string | boolean | null {
  const t = text.trim();
  if (t === '') return null;
  if (type === 'boolean') return t === 'true';
  return type === 'text' ? text : t;
}

export function CustomFieldInput({
  field,
  value,
  error,
  onChange,
}: {
  field: CustomField;
  value: string;
  error?: string[];
  onChange: (value: string) => void;
}) {
  return (
    <Field label={field.name} id={`cf-${field.key}`} error={error}>
      {(id, d, invalid) =>
        field.type === 'boolean' ? (
          <select id={id} value={value} aria-describedby={d} onChange={(e) => onChange(e.target.value)}>
            <option value="">Not set</option>
            <option value="true">Yes</option>
            <option value="false">No</option>
          </select>
        ) : (
          <input
            id={id}
            type={field.type === 'number' ? 'number' : field.type === 'date' ? 'date' : 'text'}
            step={field.type === 'number' ? 'any' : undefined}
            value={value}
            aria-describedby={d}
            aria-invalid={invalid}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}
