// The message as subscribers get it, rendered by the server for a chosen subscriber (found by search) or
// sample data: at desktop or phone width, and the plain-text part. A block document renders through
// /blocks/render, code through /campaigns/render: both are the renderer sends use. Frames are sandboxed
// with nothing allowed, so a template's scripts and forms do nothing; previews carry no tracking.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { campaignKeys, previewCampaign, renderDraft } from '../../api/campaigns.ts';
import { editorKeys, findPreviewPeople, renderBlocks } from '../../api/editor.ts';
import type { Subscriber } from '../../api/subscribers.ts';
import { Alert, withoutKey } from '../../ui.tsx';
import { ApiError } from '../../api/client.ts';
import { readDocument } from '../../editor/document.ts';
import { useSettled } from '../../lib/useSettled.ts';
import type { ContentFormat } from './model.ts';

export interface PreviewSource {
  subject: string;
  content_format: ContentFormat;
  content_source: string;
}

const DESKTOP = 640;
const PHONE = 375;

/** How wide the element is, kept up to date (the desktop frame is scaled down to fit a narrow column). */
function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(entry!.contentRect.width));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/** Unsaved content (`source`) renders through the render routes; a saved campaign's through its preview. */
export function Preview({ source, campaignId }: { source?: PreviewSource; campaignId?: string }) {
  const [person, setPerson] = useState<Subscriber>();
  const [device, setDevice] = useState<'desktop' | 'phone'>('desktop');
  const settled = useSettled(source, 600);
  const [frameBox, boxWidth] = useWidth<HTMLDivElement>();
  const subscriberId = person?.id ?? '';
  const blocks = settled?.content_format === 'blocks';
  const rendered = useQuery({
    queryKey: blocks
      ? editorKeys.render(settled.content_source, subscriberId)
      : campaignKeys.render(settled ?? campaignId, subscriberId),
    queryFn: async () =>
      blocks
        ? { subject: settled.subject, ...(await renderBlocks(readDocument(settled.content_source), subscriberId)) }
        : settled
          ? renderDraft({ ...settled, subscriber_id: subscriberId || undefined })
          : previewCampaign(campaignId!, subscriberId || undefined),
    enabled: blocks
      ? readDocument(settled.content_source).blocks.length > 0
      : settled
        ? settled.content_source.trim() !== ''
        : !!campaignId,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const empty =
    source &&
    (source.content_format === 'blocks'
      ? readDocument(source.content_source).blocks.length === 0
      : !source.content_source.trim());
  const scale = device === 'desktop' && boxWidth > 0 ? Math.min(1, boxWidth / DESKTOP) : 1;
  const height = 720;
  return (
    <section className="card preview" aria-labelledby="preview-title">
      <div className="title-row">
        <h2 id="preview-title">Preview</h2>
        <span className="be-seg" role="group" aria-label="Preview width">
          {(['desktop', 'phone'] as const).map((d) => (
            <button
              type="button"
              key={d}
              className={`small ${device === d ? '' : 'secondary'}`}
              aria-pressed={device === d}
              aria-label={`Preview at ${d} width`}
              onClick={() => setDevice(d)}
            >
              {d === 'desktop' ? 'Desktop' : 'Phone'}
            </button>
          ))}
        </span>
      </div>
      <PreviewAs person={person} onChange={setPerson} />
      {rendered.error ? (
        <Alert>
          The preview could not be rendered:{' '}
          {rendered.error instanceof ApiError
            ? withoutKey(
                Object.values(rendered.error.fields)[0]?.[0] ?? rendered.error.detail ?? rendered.error.message,
              )
            : rendered.error.message}
        </Alert>
      ) : !rendered.data || empty ? (
        <p className="muted">{empty ? 'Add some content to see it here.' : 'Rendering…'}</p>
      ) : (
        <>
          <p className="preview-subject">
            <span className="muted">Subject:</span> {rendered.data.subject}
          </p>
          <div className="preview-frames" ref={frameBox}>
            <div
              className={`frame-box frame-${device}`}
              style={device === 'desktop' ? { height: height * scale } : undefined}
            >
              <iframe
                title={device === 'desktop' ? 'Desktop preview' : 'Phone preview'}
                sandbox=""
                srcDoc={rendered.data.html}
                style={
                  device === 'desktop'
                    ? { width: DESKTOP, height, transform: `scale(${scale})`, transformOrigin: '0 0' }
                    : { width: PHONE, height }
                }
              />
            </div>
          </div>
          <details className="plain-text">
            <summary>Plain text</summary>
            <pre className="message-text" aria-label="Plain-text version">
              {rendered.data.text}
            </pre>
          </details>
        </>
      )}
    </section>
  );
}

/** "Preview as": any subscriber, found by typing part of their address or name. */
function PreviewAs({ person, onChange }: { person?: Subscriber; onChange: (p: Subscriber | undefined) => void }) {
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState(false);
  const settled = useSettled(search.trim(), 250);
  const id = useId();
  const people = useQuery({
    queryKey: editorKeys.previewPeople(settled),
    queryFn: () => findPreviewPeople(settled),
    enabled: open,
    placeholderData: keepPreviousData,
  });
  if (person)
    return (
      <p className="preview-as">
        <span className="muted">Previewing as</span> <strong>{person.email}</strong>{' '}
        <button type="button" className="small secondary" onClick={() => onChange(undefined)}>
          Use sample data
        </button>
      </p>
    );
  return (
    <div
      className="preview-as"
      onBlur={(e) => !e.currentTarget.contains(e.relatedTarget as Node | null) && setOpen(false)}
    >
      <label htmlFor={id}>Preview as</label>
      <input
        id={id}
        type="search"
        role="combobox"
        aria-expanded={open}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        placeholder="Sample subscriber — type to find a real one"
        value={search}
        onFocus={() => setOpen(true)}
        onChange={(e) => (setSearch(e.target.value), setOpen(true))}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      />
      {open && (
        <ul className="preview-people" id={`${id}-list`} role="listbox" aria-label="Subscribers">
          {people.data?.map((s) => (
            <li key={s.id} role="option" aria-selected={false}>
              <button
                type="button"
                onClick={() => {
                  onChange(s);
                  setOpen(false);
                  setSearch('');
                }}
              >
                {s.email}
                {(s.first_name || s.last_name) && (
                  <span className="muted"> · {[s.first_name, s.last_name].filter(Boolean).join(' ')}</span>
                )}
              </button>
            </li>
          ))}
          {people.data?.length === 0 && <li className="muted">Nobody matches “{settled}”.</li>}
          {people.isPending && <li className="muted">Searching…</li>}
        </ul>
      )}
    </div>
  );
}
