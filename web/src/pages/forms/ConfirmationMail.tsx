// A form's double opt-in confirmation mail (/app/forms/:id): its subject and its content in the visual
// block editor, with {{ confirm_url }} offered as a merge tag and the "Confirm button" starter, a preview
// rendered by the server exactly as a signup would get it, and Save. With no content of its own the form
// sends the built-in mail, which the preview shows until the author customises it; "Use the built-in
// email" goes back to it.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import {
  editorKeys,
  listTemplates,
  renderConfirmation,
  saveConfirmation,
  type FormConfirmation,
  type MergeTag,
} from '../../api/editor.ts';
import { BlockEditor, TemplateGallery, TemplatesToggle } from '../../editor/index.tsx';
import { emptyDocument, isEmptyDocument, newId, writeDocument } from '../../editor/document.ts';
import { ExtraMergeTags, MergeTagPicker } from '../../editor/MergeTagPicker.tsx';
import { useSettled } from '../../lib/useSettled.ts';
import { Alert, Field, fieldError } from '../../ui.tsx';

const CONFIRM_TAGS: MergeTag[] = [{ label: 'Confirmation link', path: 'confirm_url', fallback: '', always: true }];
const DEFAULT_SUBJECT = 'Please confirm your subscription';
const STARTER = 'confirmation';

export function ConfirmationMail({
  form,
  onSaved,
}: {
  form: FormConfirmation & { id: string; name: string; double_opt_in: boolean };
  onSaved: (message: string) => Promise<void>;
}) {
  const [subject, setSubject] = useState(form.confirmation_subject ?? '');
  // null: the built-in mail; a block document otherwise (HTML written through the API shows as an HTML block)
  const [source, setSource] = useState<string | null>(
    form.content_source === null
      ? null
      : form.content_format === 'blocks'
        ? form.content_source
        : writeDocument({ ...emptyDocument(), blocks: [{ id: newId(), type: 'html', html: form.content_source }] }),
  );
  const [editorKey, setEditorKey] = useState(0);
  const [gallery, setGallery] = useState(false);
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const starters = useQuery({
    queryKey: editorKeys.templates('confirmation'),
    queryFn: () => listTemplates('confirmation'),
    staleTime: 60_000,
  });
  const replace = (next: string | null) => {
    setSource(next);
    setEditorKey((k) => k + 1);
  };
  const customise = () => {
    const starter = starters.data?.find((t) => t.key === STARTER);
    if (starter) replace(writeDocument(starter.document));
    else setGallery(true);
  };
  const body = (): FormConfirmation => ({
    confirmation_subject: subject.trim() || null,
    content_format: 'blocks',
    content_source: source !== null && !isEmptyDocument(source) ? source : null,
  });
  const settled = useSettled(JSON.stringify(body()), 600);
  const preview = useQuery({
    queryKey: editorKeys.confirmation(settled),
    queryFn: () => renderConfirmation(JSON.parse(settled) as FormConfirmation),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const save = async (b: FormConfirmation, message: string) => {
    setError(undefined);
    setSaving(true);
    try {
      await saveConfirmation(form.id, b);
      await onSaved(message);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  return (
    <ExtraMergeTags.Provider value={CONFIRM_TAGS}>
      <section className="card confirmation-mail" aria-labelledby="confirmation-title">
        <h2 id="confirmation-title">Confirmation email</h2>
        <p className="hint">
          {form.double_opt_in
            ? 'Sent to everyone who signs up, with the link that confirms their subscription.'
            : 'Sent only when double opt-in is on: turn it on in the form’s settings below.'}{' '}
          The link is <code>{'{{ confirm_url }}'}</code>: insert it from the merge tags or use the “Confirm button”
          template.
        </p>
        <Alert error={error} shown={['confirmation_subject', 'content_source']} />
        <div className="draft-layout">
          <div className="draft-main">
            <Field
              id="confirmation_subject"
              label="Confirmation subject"
              error={fieldError(error, 'confirmation_subject')}
              hint={`Empty: “${DEFAULT_SUBJECT}”.`}
            >
              {(id, d, invalid) => (
                <input
                  id={id}
                  value={subject}
                  placeholder={DEFAULT_SUBJECT}
                  onChange={(e) => setSubject(e.target.value)}
                  aria-describedby={d}
                  aria-invalid={invalid}
                />
              )}
            </Field>
            <p className="hint tags">
              <MergeTagPicker
                target="the confirmation subject"
                onPick={(liquid) => setSubject((s) => `${s}${s && !s.endsWith(' ') ? ' ' : ''}${liquid}`)}
              />
            </p>
            {source === null ? (
              <div className="buttons">
                <p className="muted">This form sends the built-in confirmation email (shown in the preview).</p>
                <button type="button" className="small" onClick={customise} disabled={starters.isPending}>
                  Customise the email
                </button>
              </div>
            ) : (
              <div id="content_source">
                <div className="buttons">
                  <TemplatesToggle open={gallery} onToggle={() => setGallery((g) => !g)} />
                  <button type="button" className="small secondary" onClick={() => replace(null)}>
                    Use the built-in email
                  </button>
                </div>
                {gallery && (
                  <TemplateGallery
                    kind="confirmation"
                    onPick={(t) => {
                      replace(t.content_source);
                      setGallery(false);
                    }}
                  />
                )}
                <BlockEditor key={editorKey} label="Confirmation email" value={source} onChange={(v) => setSource(v)} />
                {fieldError(error, 'content_source') && (
                  <p className="field-error">{fieldError(error, 'content_source')![0]}</p>
                )}
              </div>
            )}
            <div className="buttons">
              <button type="button" disabled={saving} onClick={() => save(body(), 'Confirmation email saved.')}>
                {saving ? 'Saving…' : 'Save confirmation email'}
              </button>
            </div>
          </div>
          <aside className="draft-side">
            <ConfirmationPreview
              subject={preview.data?.subject}
              html={preview.data?.html}
              error={preview.error}
              pending={preview.isPending}
            />
          </aside>
        </div>
      </section>
    </ExtraMergeTags.Provider>
  );
}

function ConfirmationPreview(p: { subject?: string; html?: string; error: unknown; pending: boolean }) {
  const [phone, setPhone] = useState(false);
  return (
    <div className="preview" aria-label="Confirmation email preview" role="region">
      <div className="title-row">
        <h3>Preview</h3>
        <button type="button" className="small secondary" aria-pressed={phone} onClick={() => setPhone((x) => !x)}>
          {phone ? 'Desktop width' : 'Phone width'}
        </button>
      </div>
      {p.error ? (
        <Alert error={p.error} />
      ) : p.pending || p.html === undefined ? (
        <p className="muted">Rendering…</p>
      ) : (
        <>
          <p className="preview-subject">
            <span className="muted">Subject:</span> {p.subject}
          </p>
          <iframe
            title="Confirmation email preview"
            sandbox=""
            srcDoc={p.html}
            style={{ width: phone ? 375 : '100%', height: 560, border: '1px solid var(--border, #dde2e8)' }}
          />
        </>
      )}
    </div>
  );
}
