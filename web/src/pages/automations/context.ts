// What every part of the builder needs without passing it down by hand: the server's field errors (keyed
// by path, as "steps.1.then.0.subject"), a way to drop them once their field changes, whether the
// automation may be changed now, and the account's groups, fields and default sender.
import { createContext, useContext } from 'react';
import type { Audience } from '../../api/audience.ts';
import { withoutKey } from '../../ui.tsx';
import type { Sender, StepDraft } from './model.ts';

export type Errors = Record<string, string[]>;

export interface BuilderContext {
  errors: Errors;
  /** forgets the errors at `prefix` and under it */
  clear: (prefix: string) => void;
  readOnly: boolean;
  groups: { id: string; name: string }[];
  audience: Audience | undefined;
  sender: Sender;
}

export const Builder = createContext<BuilderContext>({
  errors: {},
  clear: () => {},
  readOnly: true,
  groups: [],
  audience: undefined,
  sender: { from_name: '', from_email: '' },
});

export const useBuilder = () => useContext(Builder);

/** The message for one path, without its wire key, as Field shows it. */
export function errorAt(errors: Errors, path: string): string[] | undefined {
  const m = errors[path];
  return m?.length ? [withoutKey(m[0]!)] : undefined;
}

/** An element id for a path and field: "steps.1.then.0" + "subject" → "f-steps-1-then-0-subject". */
export const fieldId = (path: string, field: string) => `f-${path.replace(/\./g, '-')}-${field}`;

export function dropErrors(errors: Errors, prefix: string): Errors {
  const keys = Object.keys(errors).filter((k) => k === prefix || k.startsWith(`${prefix}.`));
  if (keys.length === 0) return errors;
  const next = { ...errors };
  for (const k of keys) delete next[k];
  return next;
}

export interface StepProps<S extends StepDraft = StepDraft> {
  step: S;
  path: string;
  /** "Step 2 › Then 1": labels say which step they belong to */
  name: string;
  onChange: (next: StepDraft) => void;
}

/** Changes one field of a step and forgets the server's message about it. */
export function useSetter<S extends StepDraft>({ step, path, onChange }: StepProps<S>) {
  const { clear } = useBuilder();
  return <K extends keyof S & string>(key: K, value: S[K]) => {
    clear(`${path}.${key}`);
    onChange({ ...step, [key]: value });
  };
}
