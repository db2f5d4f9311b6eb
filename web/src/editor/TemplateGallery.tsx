// The template gallery shown when starting a campaign or an automation email: the starters and the
// account's saved templates as thumbnails (the server's render, in a sandboxed frame with nothing allowed),
// plus code starters a page passes in. Picking one hands it to the page, which asks before replacing work.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { deleteTemplate, editorKeys, listTemplates, type Template, type TemplateKind } from '../api/editor.ts';
import { ConfirmButton } from '../lib/Confirm.tsx';
import { Alert } from '../ui.tsx';
import { labelOf, writeDocument } from './document.ts';
import './editor.css';

/** A gallery entry: a block template, or a code (MJML/HTML) starter the page has. */
export interface GalleryItem {
  id: string;
  name: string;
  description?: string;
  content_format: 'blocks' | 'mjml' | 'html';
  content_source: string;
  thumbnail_html?: string;
  saved?: boolean;
  blockTypes?: string[];
}

const fromTemplate = (t: Template): GalleryItem => ({
  id: t.id,
  name: t.name,
  content_format: 'blocks',
  content_source: writeDocument(t.document),
  thumbnail_html: t.thumbnail_html,
  saved: t.kind === 'saved',
  blockTypes: t.document.blocks.map((b) => labelOf(b.type)),
});

export default function TemplateGallery({
  kind,
  extra = [],
  onPick,
}: {
  kind: TemplateKind;
  extra?: GalleryItem[];
  onPick: (item: GalleryItem) => void;
}) {
  const client = useQueryClient();
  const templates = useQuery({
    queryKey: editorKeys.templates(kind),
    queryFn: () => listTemplates(kind),
    staleTime: 60_000,
  });
  const items = [...(templates.data ?? []).map(fromTemplate), ...extra];
  return (
    <div className="gallery" role="group" aria-label="Templates">
      {templates.error && <Alert kind="warning">The block templates could not be loaded.</Alert>}
      {templates.isPending && <p className="muted">Loading templates…</p>}
      <ul className="gallery-grid">
        {items.map((t) => (
          <li key={`${t.content_format}:${t.id}`} className="gallery-item" data-format={t.content_format}>
            <button
              type="button"
              className="gallery-pick"
              onClick={() => onPick(t)}
              aria-label={`Use the template ${t.name}${t.content_format === 'blocks' ? '' : ` (${t.content_format.toUpperCase()})`}`}
            >
              <span className="gallery-thumb" aria-hidden="true">
                {t.thumbnail_html ? (
                  <iframe
                    title={`${t.name} thumbnail`}
                    sandbox=""
                    srcDoc={t.thumbnail_html}
                    tabIndex={-1}
                    loading="lazy"
                  />
                ) : t.blockTypes ? (
                  <span className="gallery-schematic">
                    {t.blockTypes.slice(0, 7).map((b, i) => (
                      <span key={i}>{b}</span>
                    ))}
                  </span>
                ) : (
                  <span className="gallery-code">{t.content_format === 'mjml' ? '<mjml>' : '<html>'}</span>
                )}
              </span>
              <span className="gallery-name">{t.name}</span>
              <span className="muted small-text">
                {t.saved
                  ? 'Saved template'
                  : t.content_format === 'blocks'
                    ? 'Visual'
                    : `${t.content_format.toUpperCase()} code`}
                {t.description ? ` · ${t.description}` : ''}
              </span>
            </button>
            {t.saved && (
              <ConfirmButton
                label="Delete"
                name={`Delete the template ${t.name}`}
                question={`Delete the saved template “${t.name}”?`}
                onConfirm={async () => {
                  await deleteTemplate(t.id);
                  await client.invalidateQueries({ queryKey: editorKeys.allTemplates });
                }}
              />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
