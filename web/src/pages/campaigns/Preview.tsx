// The message as subscribers get it, rendered by the server for a chosen subscriber (or sample data):
// desktop and phone widths side by side and the plain-text part. Frames are sandboxed with nothing
// allowed, so a template's scripts and forms do nothing; the server leaves out tracking in previews.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, type Subscriber } from '../../api.ts';
import { Alert, withoutKey } from '../../ui.tsx';
import { ApiError } from '../../api.ts';
import type { ContentFormat, Rendered } from './model.ts';

export interface PreviewSource {
  subject: string;
  content_format: ContentFormat;
  content_source: string;
}

/** The value, once it has stopped changing for `ms` (typing does not render on every key). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/** Unsaved content (`source`) renders through /campaigns/render; a saved campaign's through its preview. */
export function Preview({ source, campaignId }: { source?: PreviewSource; campaignId?: string }) {
  const [subscriberId, setSubscriberId] = useState('');
  const settled = useSettled(source, 600);
  const people = useQuery({
    queryKey: ['subscribers', { preview: true }],
    queryFn: () => api.get<{ subscribers: Subscriber[] }>('/subscribers?per_page=25&status=active'),
  });
  const rendered = useQuery({
    queryKey: ['campaigns', 'render', settled ?? campaignId, subscriberId],
    queryFn: () =>
      settled
        ? api.post<Rendered>('/campaigns/render', { ...settled, subscriber_id: subscriberId || undefined })
        : api.post<Rendered>(`/campaigns/${campaignId}/preview`, { subscriber_id: subscriberId || undefined }),
    enabled: settled ? settled.content_source.trim() !== '' : !!campaignId,
    placeholderData: keepPreviousData,
    retry: false,
  });
  return (
    <section className="card" aria-labelledby="preview-title">
      <div className="title-row">
        <h2 id="preview-title">Preview</h2>
        <label className="inline-field">
          <span>Preview as</span>
          <select value={subscriberId} onChange={(e) => setSubscriberId(e.target.value)}>
            <option value="">Sample subscriber</option>
            {people.data?.subscribers.map((s) => (
              <option key={s.id} value={s.id}>
                {s.email}
              </option>
            ))}
          </select>
        </label>
      </div>
      {rendered.error ? (
        <Alert>
          The preview could not be rendered:{' '}
          {rendered.error instanceof ApiError
            ? withoutKey(
                Object.values(rendered.error.fields)[0]?.[0] ?? rendered.error.detail ?? rendered.error.message,
              )
            : rendered.error.message}
        </Alert>
      ) : !rendered.data ? (
        <p className="muted">
          {!source || source.content_source.trim() ? 'Rendering…' : 'Write some content to see it here.'}
        </p>
      ) : (
        <>
          <p className="preview-subject">
            <span className="muted">Subject:</span> {rendered.data.subject}
          </p>
          <div className="preview-frames">
            <figure>
              <figcaption>Desktop</figcaption>
              <iframe title="Desktop preview" sandbox="" srcDoc={rendered.data.html} className="frame-desktop" />
            </figure>
            <figure>
              <figcaption>Phone</figcaption>
              <iframe title="Phone preview" sandbox="" srcDoc={rendered.data.html} className="frame-phone" />
            </figure>
          </div>
          <h3>Plain text</h3>
          <pre className="message-text" aria-label="Plain-text version">
            {rendered.data.text}
          </pre>
        </>
      )}
    </section>
  );
}
