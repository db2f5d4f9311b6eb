// A draft's editor: name, subject and preview text (with the merge-tag picker), sender, audience and the
// content — the visual block editor, or MJML/HTML in CodeMirror — started from the template gallery or
// blank, with the live preview beside it on wide screens. An existing draft autosaves a few seconds after
// the last change (Saving…/Draft saved.); a save from another tab since this one loaded is reported
// instead of overwritten (409), and leaving with unsaved changes asks first. The server's field errors
// appear next to their fields and go away as soon as the field is changed.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/client.ts';
import {
  campaignKeys,
  createCampaign,
  getCampaign,
  starterTemplates,
  updateCampaign,
  type DraftInput,
} from '../../api/campaigns.ts';
import { editorKeys, saveTemplate } from '../../api/editor.ts';
import { CodeEditor } from '../../lib/CodeEditor.tsx';
import { Alert, Field, withoutKey } from '../../ui.tsx';
import { BlockEditor, TemplateGallery, TemplatesToggle, type GalleryItem } from '../../editor/index.tsx';
import { emptyDocument, isEmptyDocument, newId, readDocument, writeDocument } from '../../editor/document.ts';
import { LeaveGuard } from '../../editor/LeaveGuard.tsx';
import { MergeTagPicker } from '../../editor/MergeTagPicker.tsx';
import { AudiencePicker } from './AudiencePicker.tsx';
import { abTestBody, AbTestEditor } from './AbTestEditor.tsx';
import { campaignKey, type AbTestInput, type AccountSettings, type Campaign, type ContentFormat } from './model.ts';
import { Preview } from './Preview.tsx';

/** How long after the last change an existing draft saves itself. */
export const AUTOSAVE_MS = 2500;

export interface Draft {
  name: string;
  subject: string;
  preview_text: string;
  from_name: string;
  from_email: string;
  reply_to: string;
  group_ids: string[];
  segment_ids: string[];
  content_format: ContentFormat;
  content_source: string;
  ab_test: AbTestInput | null;
}
type Errors = Partial<Record<keyof Draft | 'audience', string[]>>;

const SHOWN = [
  'name',
  'subject',
  'preview_text',
  'from_name',
  'from_email',
  'reply_to',
  'group_ids',
  'segment_ids',
  'content_format',
  'content_source',
  'ab_test',
];
const FORMATS: Record<ContentFormat, string> = {
  blocks: 'Visual editor',
  mjml: 'MJML (responsive email markup)',
  html: 'HTML',
};
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function draftOf(c: Campaign | undefined, settings: AccountSettings | undefined): Draft {
  return {
    name: c?.name ?? '',
    subject: c?.subject ?? '',
    preview_text: c?.preview_text ?? '',
    from_name: c?.from_name ?? settings?.default_from_name ?? '',
    from_email: c?.from_email ?? settings?.default_from_email ?? '',
    reply_to: c?.reply_to ?? settings?.default_reply_to ?? '',
    group_ids: c?.group_ids ?? [],
    segment_ids: c?.segment_ids ?? [],
    // new campaigns start in the visual editor; code stays one switch away
    content_format: c?.content_format ?? 'blocks',
    content_source: c?.content_source ?? (c ? '' : writeDocument(emptyDocument())),
    ab_test: c?.ab_test
      ? {
          variants: c.ab_test.variants.map((v) => ({
            subject: v.subject ?? '',
            preview_text: v.preview_text ?? '',
            from_name: v.from_name ?? '',
          })),
          test_percent: c.ab_test.test_percent,
          winner_by: c.ab_test.winner_by,
          wait_hours: c.ab_test.wait_hours,
        }
      : null,
  };
}

/** What can be told before asking the server, in the same words the page uses next to the field. */
function check(d: Draft): Errors {
  const e: Errors = {};
  if (!d.name.trim()) e.name = ['Give the campaign a name.'];
  if (!d.subject.trim()) e.subject = ['Write a subject line.'];
  if (d.from_email.trim() && !EMAIL.test(d.from_email.trim()))
    e.from_email = ['Enter an email address like news@example.com.'];
  if (d.reply_to.trim() && !EMAIL.test(d.reply_to.trim()))
    e.reply_to = ['Enter an email address like replies@example.com.'];
  return e;
}

function fromServer(error: unknown): Errors {
  if (!(error instanceof ApiError)) return {};
  const e: Errors = {};
  for (const [k, m] of Object.entries(error.fields)) {
    const key = (
      k === 'group_ids' || k === 'segment_ids' ? 'audience' : k.startsWith('ab_test') ? 'ab_test' : k
    ) as keyof Errors;
    e[key] = [withoutKey(m[0] ?? '')];
  }
  return e;
}

/** Nothing would be lost by replacing the content. */
export function contentIsEmpty(format: ContentFormat, source: string): boolean {
  return format === 'blocks' ? isEmptyDocument(source) : !source.trim();
}

/** The draft as the API takes it: empty optional fields left out. */
function bodyOf(d: Draft): DraftInput {
  return {
    ...d,
    preview_text: d.preview_text || undefined,
    from_name: d.from_name || undefined,
    from_email: d.from_email || undefined,
    reply_to: d.reply_to || undefined,
    ab_test: abTestBody(d.ab_test),
  };
}

type SaveState = 'saving' | 'saved' | 'failed' | 'conflict' | undefined;

export function Editor({
  campaign,
  settings,
  onSaved,
  draft,
  setDraft,
}: {
  campaign?: Campaign;
  settings?: AccountSettings;
  onSaved?: (c: Campaign) => void;
  draft: Draft;
  setDraft: (update: (d: Draft) => Draft) => void;
}) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [errors, setErrors] = useState<Errors>({});
  const [state, setState] = useState<SaveState>();
  const [failure, setFailure] = useState<unknown>();
  const [saves, setSaves] = useState(0);
  // bumped when the content is replaced from outside the visual editor, which then starts over with it
  const [contentKey, setContentKey] = useState(0);
  const savedAs = useRef(JSON.stringify(draftOf(campaign, settings)));
  const updatedAt = useRef(campaign?.updated_at);
  const inFlight = useRef(false);
  const dirty = JSON.stringify(draft) !== savedAs.current;

  const persist = async (d: Draft, how: 'auto' | 'manual') => {
    inFlight.current = true;
    setState('saving');
    try {
      const c = campaign
        ? await updateCampaign(campaign.id, { ...bodyOf(d), expected_updated_at: updatedAt.current })
        : await createCampaign(bodyOf(d));
      savedAs.current = JSON.stringify(d);
      updatedAt.current = c.updated_at;
      client.setQueryData(campaignKey(c.id), c);
      await client.invalidateQueries({ queryKey: campaignKeys.lists });
      setFailure(undefined);
      setState('saved');
      if (!campaign) navigate(`/app/campaigns/${c.id}`, { replace: true });
      onSaved?.(c);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) setState('conflict');
      else {
        setState('failed');
        setFailure(error);
        // an autosave's refusal names the field too: the user sees why it did not save
        if (how === 'manual' || (error instanceof ApiError && error.status === 400)) setErrors(fromServer(error));
      }
    } finally {
      inFlight.current = false;
      setSaves((n) => n + 1);
    }
  };

  // autosave: an existing draft saves itself once the changes have settled and pass the page's own checks
  useEffect(() => {
    if (!campaign || !dirty || inFlight.current || state === 'conflict' || state === 'failed') return;
    if (Object.keys(check(draft)).length) return;
    const t = setTimeout(() => void persist(draft, 'auto'), AUTOSAVE_MS);
    return () => clearTimeout(t);
    // persist is rebuilt each render; what matters is the draft and the last save's outcome
  }, [draft, campaign?.id, dirty, state, saves]);

  /** After a conflict: take the version saved elsewhere, or save this one over it. */
  const resolve = async (keep: 'theirs' | 'mine') => {
    if (!campaign) return;
    const latest = await getCampaign(campaign.id);
    updatedAt.current = latest.updated_at;
    client.setQueryData(campaignKey(latest.id), latest);
    if (keep === 'theirs') {
      const theirs = draftOf(latest, settings);
      savedAs.current = JSON.stringify(theirs);
      setDraft(() => theirs);
      setContentKey((k) => k + 1);
      setState('saved');
    } else await persist(draft, 'manual');
  };

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    if (state === 'failed') setState(undefined);
    // an error is about what was there; once the field changes it no longer applies
    setErrors((e) => (e[key] ? { ...e, [key]: undefined } : e));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problems = check(draft);
    setErrors(problems);
    if (Object.keys(problems).length) {
      const first = Object.keys(problems)[0]!;
      document.getElementById(`f-${first}`)?.focus();
      return;
    }
    void persist(draft, 'manual');
  };
  const append = (key: 'subject' | 'preview_text') => (liquid: string) =>
    set(key, `${draft[key]}${draft[key] && !draft[key].endsWith(' ') ? ' ' : ''}${liquid}`);
  const serverOther = failure && !(failure instanceof ApiError && failure.status === 400) ? failure : undefined;
  const hidden = failure instanceof ApiError ? Object.keys(failure.fields).filter((k) => !SHOWN.includes(k)) : [];
  const field = (key: keyof Draft, label: string, type = 'text', hint?: string) => (
    <Field id={`f-${key}`} label={label} error={errors[key]} hint={hint} key={key}>
      {(id, d, invalid) => (
        <input
          id={id}
          name={key}
          type={type}
          value={draft[key] as string}
          onChange={(e) => set(key, e.target.value as Draft[typeof key])}
          aria-describedby={d}
          aria-invalid={invalid}
        />
      )}
    </Field>
  );
  const status =
    state === 'saving'
      ? 'Saving…'
      : state === 'conflict'
        ? 'Not saved: changed elsewhere.'
        : state === 'failed'
          ? 'Not saved.'
          : dirty
            ? campaign
              ? 'Unsaved changes'
              : ''
            : state === 'saved'
              ? 'Draft saved.'
              : '';
  return (
    <form className="editor draft-layout" onSubmit={submit} noValidate aria-label="Campaign editor">
      <LeaveGuard
        when={dirty || state === 'saving'}
        message={campaign ? 'Your latest changes are not saved yet.' : 'This campaign has not been created yet.'}
      />
      <div className="draft-main">
        <Alert error={serverOther} />
        {hidden.length > 0 && <Alert error={failure} shown={SHOWN} />}
        {Object.values(errors).some(Boolean) && (
          <Alert>Some fields need a change before the campaign can be saved: see the messages next to them.</Alert>
        )}
        {state === 'conflict' && (
          <div className="alert alert-warning conflict" role="alert">
            <p>
              This draft was saved in another tab or by someone else after you opened it. Your changes here are not
              saved, so nothing was overwritten.
            </p>
            <div className="buttons">
              <button type="button" className="small secondary" onClick={() => void resolve('theirs')}>
                Load the saved version
              </button>
              <button type="button" className="small danger" onClick={() => void resolve('mine')}>
                Keep mine and overwrite
              </button>
            </div>
          </div>
        )}
        <div className="card">
          <h2>Details</h2>
          {field('name', 'Campaign name', 'text', 'Only you see this; subscribers see the subject.')}
          {field('subject', 'Subject', 'text')}
          <p className="hint tags">
            <MergeTagPicker target="the subject" onPick={append('subject')} />
          </p>
          {field('preview_text', 'Preview text', 'text', 'Shown after the subject in most inboxes.')}
          <p className="hint tags">
            <MergeTagPicker target="the preview text" onPick={append('preview_text')} />
          </p>
          <div className="row">
            {field('from_name', 'Sender name')}
            {field('from_email', 'Sender email', 'email')}
          </div>
          {field(
            'reply_to',
            'Reply-to',
            'email',
            settings?.default_reply_to ? undefined : 'Optional: where replies go.',
          )}
        </div>
        <div className="card">
          <AudiencePicker
            groupIds={draft.group_ids}
            segmentIds={draft.segment_ids}
            error={errors.audience}
            onChange={(next) => {
              setDraft((d) => ({ ...d, ...next }));
              setErrors((e) => ({ ...e, audience: undefined }));
            }}
          />
        </div>
        <AbTestEditor
          value={draft.ab_test}
          subject={draft.subject}
          errors={errors.ab_test}
          onChange={(next) => set('ab_test', next)}
        />
        <Content
          contentKey={contentKey}
          replaced={() => setContentKey((k) => k + 1)}
          campaign={campaign}
          draft={draft}
          setDraft={setDraft}
          error={errors.content_source ?? errors.content_format}
          clearError={() => setErrors((er) => ({ ...er, content_source: undefined, content_format: undefined }))}
        />
        <div className="buttons sticky-actions">
          <button type="submit" disabled={state === 'saving'}>
            {campaign ? 'Save draft' : 'Create draft'}
          </button>
          <span
            role="status"
            className={`save-state muted${state === 'saving' ? ' saving' : ''}`}
            data-state={state ?? (dirty ? 'dirty' : '')}
          >
            {status}
          </span>
        </div>
      </div>
      <aside className="draft-side">
        <Preview
          source={{
            subject: draft.subject,
            content_format: draft.content_format,
            content_source: draft.content_source,
          }}
        />
      </aside>
    </form>
  );
}

type Question = { kind: 'format'; to: ContentFormat; convert?: string } | { kind: 'template'; item: GalleryItem };

/**
 * The content: its format, the gallery, the visual editor or the code. Switching formats converts where
 * that keeps everything (HTML becomes an HTML block of the visual editor) and otherwise asks before
 * discarding; a template replaces only after a question when there is something to lose.
 */
function Content({
  contentKey,
  replaced,
  campaign,
  draft,
  setDraft,
  error,
  clearError,
}: {
  contentKey: number;
  /** the content was replaced (template, format): the visual editor starts over with it */
  replaced: () => void;
  campaign?: Campaign;
  draft: Draft;
  setDraft: (update: (d: Draft) => Draft) => void;
  error?: string[];
  clearError: () => void;
}) {
  const client = useQueryClient();
  const empty = contentIsEmpty(draft.content_format, draft.content_source);
  const [gallery, setGallery] = useState(empty && !campaign);
  const [question, setQuestion] = useState<Question>();
  const [saving, setSaving] = useState<string>();
  const [note, setNote] = useState<string>();
  const starters = useQuery({ queryKey: campaignKeys.templates, queryFn: starterTemplates, staleTime: Infinity });
  const code: GalleryItem[] = (starters.data ?? []).map((t) => ({
    id: t.id,
    name: t.name,
    description: t.description,
    content_format: t.content_format,
    content_source: t.content_source,
  }));
  const apply = (content_format: ContentFormat, content_source: string) => {
    setDraft((d) => ({ ...d, content_format, content_source }));
    setQuestion(undefined);
    clearError();
    if (content_format === 'blocks') replaced();
  };
  const switchTo = (to: ContentFormat) => {
    setNote(undefined);
    if (to === draft.content_format) return;
    if (empty) return apply(to, to === 'blocks' ? writeDocument(emptyDocument()) : '');
    if (draft.content_format === 'html' && to === 'blocks') {
      // nothing is lost: the HTML becomes one HTML block, and blocks can be added around it
      apply(
        'blocks',
        writeDocument({ ...emptyDocument(), blocks: [{ id: newId(), type: 'html', html: draft.content_source }] }),
      );
      return setNote('Your HTML is now an HTML block in the visual editor.');
    }
    setQuestion({ kind: 'format', to });
  };
  const pick = (item: GalleryItem) => {
    if (empty) {
      apply(item.content_format, item.content_source);
      setGallery(false);
    } else setQuestion({ kind: 'template', item });
  };
  return (
    <div className="card content-card">
      <div className="title-row">
        <h2>Content</h2>
        <div className="buttons">
          <TemplatesToggle open={gallery} onToggle={() => setGallery((g) => !g)} />
          {draft.content_format === 'blocks' && !empty && (
            <button
              type="button"
              className="small secondary"
              onClick={() => setSaving(saving === undefined ? draft.name || '' : undefined)}
            >
              Save as template
            </button>
          )}
        </div>
      </div>
      <Field label="Format">
        {(id) => (
          <select id={id} value={draft.content_format} onChange={(e) => switchTo(e.target.value as ContentFormat)}>
            {(Object.keys(FORMATS) as ContentFormat[]).map((f) => (
              <option key={f} value={f}>
                {FORMATS[f]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {note && <Alert kind="success">{note}</Alert>}
      {question && (
        <div className="confirm-box" role="alertdialog" aria-label="Replace the content?">
          <p>
            {question.kind === 'format'
              ? `The ${FORMATS[draft.content_format].split(' (')[0]} content cannot be converted to ${FORMATS[question.to].split(' (')[0]}. Switching starts empty and discards it.`
              : `Replace the content with the “${question.item.name}” template? The current content is discarded.`}
          </p>
          <div className="buttons">
            <button
              type="button"
              className="danger small"
              onClick={() => {
                if (question.kind === 'format')
                  apply(question.to, question.to === 'blocks' ? writeDocument(emptyDocument()) : '');
                else {
                  apply(question.item.content_format, question.item.content_source);
                  setGallery(false);
                }
              }}
            >
              {question.kind === 'format' ? 'Discard and switch' : 'Replace'}
            </button>
            <button type="button" className="secondary small" onClick={() => setQuestion(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {saving !== undefined && (
        <SaveAsTemplate
          name={saving}
          onName={setSaving}
          onSave={async () => {
            await saveTemplate({ name: saving.trim(), document: readDocument(draft.content_source) });
            await client.invalidateQueries({ queryKey: editorKeys.allTemplates });
            setSaving(undefined);
            setNote(`Saved as the template “${saving.trim()}”.`);
          }}
          onCancel={() => setSaving(undefined)}
        />
      )}
      {gallery && <TemplateGallery kind="campaign" extra={code} onPick={pick} />}
      {draft.content_format === 'blocks' ? (
        <div id="f-content_source" className={error ? 'invalid-block' : undefined}>
          <BlockEditor
            key={contentKey}
            label="Campaign content"
            value={draft.content_source}
            onChange={(content_source) => setDraft((d) => ({ ...d, content_source }))}
          />
          {error && (
            <p className="field-error" id="f-content_source-error">
              {error[0]}
            </p>
          )}
        </div>
      ) : (
        <Field
          id="f-content_source"
          label="Content"
          error={error}
          hint='Liquid tags like {{ subscriber.first_name | default: "there" }} are filled in for each subscriber.'
        >
          {(id, d, invalid) => (
            <CodeEditor
              id={id}
              label="Content"
              value={draft.content_source}
              onChange={(v) => {
                setDraft((dr) => ({ ...dr, content_source: v }));
                clearError();
              }}
              describedBy={d}
              invalid={invalid}
            />
          )}
        </Field>
      )}
    </div>
  );
}

function SaveAsTemplate({
  name,
  onName,
  onSave,
  onCancel,
}: {
  name: string;
  onName: (n: string) => void;
  onSave: () => Promise<void>;
  onCancel: () => void;
}) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <div className="confirm-box save-template" role="group" aria-label="Save as template">
      <Field label="Template name">
        {(id) => <input id={id} value={name} onChange={(e) => onName(e.target.value)} autoFocus />}
      </Field>
      <Alert error={error} />
      <div className="buttons">
        <button
          type="button"
          className="small"
          disabled={!name.trim() || busy}
          onClick={async () => {
            setBusy(true);
            setError(undefined);
            try {
              await onSave();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          Save template
        </button>
        <button type="button" className="small secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
