// A draft's editor: name, subject (with personalisation tags), preview text, sender, audience and the
// content in CodeMirror, started from a starter template or blank. Saving creates or updates the draft;
// the server's field errors appear next to their fields and go away as soon as the field is changed.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError } from '../../api.ts';
import { CodeEditor } from '../../lib/CodeEditor.tsx';
import { Alert, Field, withoutKey } from '../../ui.tsx';
import { AudiencePicker } from './AudiencePicker.tsx';
import { campaignKey, type AccountSettings, type Campaign, type ContentFormat, type StarterTemplate } from './model.ts';
import { Preview } from './Preview.tsx';

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
];
const TAGS = ['{{ subscriber.first_name }}', '{{ subscriber.last_name }}', '{{ subscriber.email }}'];
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
    content_format: c?.content_format ?? 'mjml',
    content_source: c?.content_source ?? '',
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
    const key = (k === 'group_ids' || k === 'segment_ids' ? 'audience' : k) as keyof Errors;
    e[key] = [withoutKey(m[0] ?? '')];
  }
  return e;
}

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
  const [saved, setSaved] = useState(false);
  const templates = useQuery({
    queryKey: ['campaign-templates'],
    queryFn: () => api.get<StarterTemplate[]>('/campaign-templates'),
    staleTime: Infinity,
  });
  const save = useMutation({
    mutationFn: (d: Draft) => {
      const body = {
        ...d,
        preview_text: d.preview_text || undefined,
        from_name: d.from_name || undefined,
        from_email: d.from_email || undefined,
        reply_to: d.reply_to || undefined,
      };
      return campaign ? api.put<Campaign>(`/campaigns/${campaign.id}`, body) : api.post<Campaign>('/campaigns', body);
    },
    onSuccess: async (c) => {
      client.setQueryData(campaignKey(c.id), c);
      await client.invalidateQueries({ queryKey: ['campaigns', 'list'] });
      setSaved(true);
      if (!campaign) navigate(`/app/campaigns/${c.id}`, { replace: true });
      onSaved?.(c);
    },
    onError: (error) => setErrors(fromServer(error)),
  });
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setSaved(false);
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
    save.mutate(draft);
  };
  const serverOther =
    save.error && !(save.error instanceof ApiError && save.error.status === 400) ? save.error : undefined;
  const hidden = save.error instanceof ApiError ? Object.keys(save.error.fields).filter((k) => !SHOWN.includes(k)) : [];
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
  return (
    <form className="editor" onSubmit={submit} noValidate aria-label="Campaign editor">
      <Alert error={serverOther} />
      {hidden.length > 0 && <Alert error={save.error} shown={SHOWN} />}
      {Object.values(errors).some(Boolean) && (
        <Alert>Some fields need a change before the campaign can be saved: see the messages next to them.</Alert>
      )}
      <div className="card">
        <h2>Details</h2>
        {field('name', 'Campaign name', 'text', 'Only you see this; subscribers see the subject.')}
        {field('subject', 'Subject', 'text')}
        <p className="hint tags">
          Personalise with{' '}
          {TAGS.map((t) => (
            <button
              type="button"
              key={t}
              className="tag small secondary"
              onClick={() =>
                set('subject', `${draft.subject}${draft.subject && !draft.subject.endsWith(' ') ? ' ' : ''}${t}`)
              }
              aria-label={`Add ${t} to the subject`}
            >
              {t}
            </button>
          ))}
        </p>
        {field('preview_text', 'Preview text', 'text', 'Shown after the subject in most inboxes.')}
        <div className="row">
          {field('from_name', 'Sender name')}
          {field('from_email', 'Sender email', 'email')}
        </div>
        {field('reply_to', 'Reply-to', 'email', settings?.default_reply_to ? undefined : 'Optional: where replies go.')}
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
      <div className="card">
        <h2>Content</h2>
        <div className="row">
          <Field label="Format" error={errors.content_format}>
            {(id) => (
              <select
                id={id}
                value={draft.content_format}
                onChange={(e) => set('content_format', e.target.value as ContentFormat)}
              >
                <option value="mjml">MJML (responsive email markup)</option>
                <option value="html">HTML</option>
              </select>
            )}
          </Field>
          <Field label="Start from a template">
            {(id) => (
              <select
                id={id}
                value=""
                onChange={(e) => {
                  const t = templates.data?.find((x) => x.id === e.target.value);
                  if (!t) return;
                  if (draft.content_source.trim() && !confirm(`Replace the content with the “${t.name}” template?`))
                    return;
                  setDraft((d) => ({ ...d, content_format: t.content_format, content_source: t.content_source }));
                  setErrors((er) => ({ ...er, content_source: undefined, content_format: undefined }));
                }}
              >
                <option value="">Choose a starter template…</option>
                {templates.data?.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name} — {t.description}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <Field
          id="f-content_source"
          label="Content"
          error={errors.content_source}
          hint="Liquid tags like {{ subscriber.first_name }} are filled in for each subscriber."
        >
          {(id, d, invalid) => (
            <CodeEditor
              id={id}
              label="Content"
              value={draft.content_source}
              onChange={(v) => set('content_source', v)}
              describedBy={d}
              invalid={invalid}
            />
          )}
        </Field>
      </div>
      <div className="buttons sticky-actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : campaign ? 'Save draft' : 'Create draft'}
        </button>
        <span role="status" className="muted">
          {saved && !save.isPending ? 'Draft saved.' : ''}
        </span>
      </div>
      <Preview
        source={{ subject: draft.subject, content_format: draft.content_format, content_source: draft.content_source }}
      />
    </form>
  );
}
