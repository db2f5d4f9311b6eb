// The visual editor as the pages use it: loaded on demand (React.lazy), so the pages that do not edit
// email never download tiptap, dnd-kit or the editor's styles. While the chunk loads, a plain note shows.
import { lazy, Suspense } from 'react';
import type { BlockEditorProps } from './BlockEditor.tsx';
import type { GalleryItem } from './TemplateGallery.tsx';
import type { TemplateKind } from '../api/editor.ts';

const Editor = lazy(() => import('./BlockEditor.tsx'));
const Gallery = lazy(() => import('./TemplateGallery.tsx'));

export type { GalleryItem };

export function BlockEditor(props: BlockEditorProps) {
  return (
    <Suspense fallback={<p className="muted be-loading">Loading the editor…</p>}>
      <Editor {...props} />
    </Suspense>
  );
}

/** The button that shows or hides a page's template gallery. */
export function TemplatesToggle({ open, onToggle }: { open: boolean; onToggle: () => void }) {
  return (
    <button type="button" className="small secondary" aria-expanded={open} onClick={onToggle}>
      {open ? 'Hide templates' : 'Templates'}
    </button>
  );
}

export function TemplateGallery(props: {
  kind: TemplateKind;
  extra?: GalleryItem[];
  onPick: (item: GalleryItem) => void;
}) {
  return (
    <Suspense fallback={<p className="muted">Loading templates…</p>}>
      <Gallery {...props} />
    </Suspense>
  );
}
