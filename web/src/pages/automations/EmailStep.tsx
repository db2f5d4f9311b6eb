// A send_email step: subject, sender (the account's defaults to start with) and the HTML in the content
// editor, with the server's preview of it (the campaign editor's Preview, rendered the same way).
import { useState } from 'react';
import { CodeEditor } from '../../lib/CodeEditor.tsx';
import { Field } from '../../ui.tsx';
import { Preview } from '../campaigns/Preview.tsx';
import { errorAt, fieldId, useBuilder } from './context.ts';
import type { StepDraft } from './model.ts';
import { useSetter, type StepProps } from './StepFields.tsx';

type EmailDraft = Extract<StepDraft, { type: 'send_email' }>;

export function EmailStep(props: StepProps<EmailDraft>) {
  const { errors, readOnly } = useBuilder();
  const { step, path, name } = props;
  const set = useSetter(props);
  const [preview, setPreview] = useState(false);
  const input = (key: 'subject' | 'from_name' | 'from_email', label: string, type = 'text', hint?: string) => (
    <Field id={fieldId(path, key)} label={label} error={errorAt(errors, `${path}.${key}`)} hint={hint}>
      {(id, d, invalid) => (
        <input
          id={id}
          type={type}
          value={step[key]}
          onChange={(e) => set(key, e.target.value)}
          aria-describedby={d}
          aria-invalid={invalid}
        />
      )}
    </Field>
  );
  return (
    <>
      <fieldset className="plain" disabled={readOnly}>
        {input('subject', 'Subject', 'text', 'Liquid works here too: {{ subscriber.first_name | default: "there" }}')}
        <div className="row">
          {input('from_name', 'Sender name')}
          {input('from_email', 'Sender email', 'email')}
        </div>
        <Field
          id={fieldId(path, 'content_html')}
          label="Content (HTML)"
          error={errorAt(errors, `${path}.content_html`)}
          hint="An unsubscribe link is added at the end when the content has no {{ unsubscribe_url }}."
        >
          {(id, d, invalid) =>
            readOnly ? (
              <textarea id={id} className="mono code-fallback" rows={8} value={step.content_html} readOnly />
            ) : (
              <CodeEditor
                id={id}
                label={`Content of ${name}`}
                value={step.content_html}
                onChange={(v) => set('content_html', v)}
                describedBy={d}
                invalid={invalid}
              />
            )
          }
        </Field>
      </fieldset>
      <button
        type="button"
        className="secondary small"
        aria-expanded={preview}
        onClick={() => setPreview((p) => !p)}
        aria-label={`${preview ? 'Hide' : 'Show'} the preview of ${name}`}
      >
        {preview ? 'Hide preview' : 'Preview'}
      </button>
      {preview && (
        <div className="step-preview">
          <Preview source={{ subject: step.subject, content_format: 'html', content_source: step.content_html }} />
        </div>
      )}
    </>
  );
}
