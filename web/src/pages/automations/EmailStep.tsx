// A send_email step: subject (with the merge-tag picker), sender (the account's defaults to start with)
// and the content — the visual block editor with the automation templates, or HTML in the code editor —
// with the server's preview of it (the campaign editor's Preview, rendered the same way). Switching from
// HTML to the visual editor keeps the HTML as an HTML block; the other way asks before discarding.
import { useState } from 'react';
import { CodeEditor } from '../../lib/CodeEditor.tsx';
import { Field } from '../../ui.tsx';
import { BlockEditor, TemplateGallery } from '../../editor/index.tsx';
import { emptyDocument, isEmptyDocument, newId, writeDocument } from '../../editor/document.ts';
import { MergeTagPicker } from '../../editor/MergeTagPicker.tsx';
import { Preview } from '../campaigns/Preview.tsx';
import { errorAt, fieldId, useBuilder, useSetter, type StepProps } from './context.ts';
import type { StepDraft } from './model.ts';

type EmailDraft = Extract<StepDraft, { type: 'send_email' }>;

export function EmailStep(props: StepProps<EmailDraft>) {
  const { errors, readOnly } = useBuilder();
  const { step, path, name } = props;
  const set = useSetter(props);
  const [preview, setPreview] = useState(false);
  const [asking, setAsking] = useState(false);
  // a new key starts the visual editor over with content replaced from outside it (a template, a switch)
  const [editorKey, setEditorKey] = useState(0);
  const blocks = step.content_format === 'blocks';
  const empty = blocks ? isEmptyDocument(step.content_source) : !step.content_html.trim();
  const [gallery, setGallery] = useState(false);
  // both fields in one change: the setter builds each change from the step as rendered
  const setContent = (content_format: 'html' | 'blocks', content_source: string) =>
    props.onChange({ ...step, content_format, content_source });
  const toBlocks = (source: string) => {
    setContent('blocks', source);
    setEditorKey((k) => k + 1);
  };
  const switchTo = (format: 'html' | 'blocks') => {
    if (format === step.content_format) return;
    if (format === 'blocks')
      return toBlocks(
        writeDocument(
          step.content_html.trim()
            ? { ...emptyDocument(), blocks: [{ id: newId(), type: 'html', html: step.content_html }] }
            : emptyDocument(),
        ),
      );
    if (empty) return set('content_format', 'html');
    setAsking(true);
  };
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
  const contentError =
    errorAt(errors, `${path}.content_source`) ??
    errorAt(errors, `${path}.content_html`) ??
    errorAt(errors, `${path}.content_format`);
  return (
    <>
      <fieldset className="plain" disabled={readOnly}>
        {input('subject', 'Subject', 'text', 'Liquid works here too: {{ subscriber.first_name | default: "there" }}')}
        {!readOnly && (
          <p className="hint tags">
            <MergeTagPicker
              target={`the subject of ${name}`}
              onPick={(liquid) =>
                set('subject', `${step.subject}${step.subject && !step.subject.endsWith(' ') ? ' ' : ''}${liquid}`)
              }
            />
          </p>
        )}
        <div className="row">
          {input('from_name', 'Sender name')}
          {input('from_email', 'Sender email', 'email')}
        </div>
        <div className="row">
          <Field id={fieldId(path, 'content_format')} label="Format">
            {(id) => (
              <select
                id={id}
                value={step.content_format}
                onChange={(e) => switchTo(e.target.value as 'html' | 'blocks')}
              >
                <option value="html">HTML</option>
                <option value="blocks">Visual editor</option>
              </select>
            )}
          </Field>
        </div>
        {asking && (
          <div className="confirm-box" role="alertdialog" aria-label={`Discard the design of ${name}?`}>
            <p>The visual design cannot be turned back into HTML. Switching starts empty and discards it.</p>
            <div className="buttons">
              <button
                type="button"
                className="danger small"
                onClick={() => {
                  setContent('html', '');
                  setAsking(false);
                }}
              >
                Discard and switch
              </button>
              <button type="button" className="secondary small" onClick={() => setAsking(false)}>
                Cancel
              </button>
            </div>
          </div>
        )}
        {blocks ? (
          <div id={fieldId(path, 'content_source')}>
            {!readOnly && (
              <button
                type="button"
                className="small secondary"
                aria-expanded={gallery || empty}
                onClick={() => setGallery((g) => !g)}
              >
                {gallery ? 'Hide templates' : 'Templates'}
              </button>
            )}
            {!readOnly && (gallery || empty) && (
              <TemplateGallery
                kind="automation"
                onPick={(t) => {
                  // an empty design is replaced at once; a written one only when asked for from the gallery button
                  if (empty || gallery) toBlocks(t.content_source);
                  setGallery(false);
                }}
              />
            )}
            <BlockEditor
              key={editorKey}
              label={`Content of ${name}`}
              value={step.content_source}
              onChange={(v) => set('content_source', v)}
            />
            {contentError && <p className="field-error">{contentError[0]}</p>}
          </div>
        ) : (
          <Field
            id={fieldId(path, 'content_html')}
            label="Content (HTML)"
            error={contentError}
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
        )}
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
          <Preview
            source={{
              subject: step.subject,
              content_format: step.content_format,
              content_source: blocks ? step.content_source : step.content_html,
            }}
          />
        </div>
      )}
    </>
  );
}
