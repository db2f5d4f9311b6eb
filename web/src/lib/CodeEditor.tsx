// The content editor: CodeMirror 6 with HTML (MJML is tags too) and Liquid's {{ }} and {% %} highlighted.
// Loaded on demand, so only the campaign editor carries it.
import { lazy, Suspense } from 'react';

// the props are declared with the part that draws them, so the two files import one way
import type { CodeEditorProps } from './codemirror.tsx';

const Editor = lazy(() => import('./codemirror.tsx'));

export function CodeEditor(props: CodeEditorProps) {
  return (
    <Suspense
      fallback={<textarea id={props.id} className="mono code-fallback" rows={18} value={props.value} readOnly />}
    >
      <Editor {...props} />
    </Suspense>
  );
}
