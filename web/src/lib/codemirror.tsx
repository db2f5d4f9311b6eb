// CodeMirror's view, created once per mount; the document follows `value` when it changes from outside
// (a starter template chosen), and every edit goes back through onChange.
import { liquid } from '@codemirror/lang-liquid';
import { html } from '@codemirror/lang-html';
import { EditorView, basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';

export interface CodeEditorProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  describedBy?: string;
  invalid?: boolean;
  label: string;
}

export default function CodeMirrorEditor({ id, value, onChange, describedBy, invalid, label }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(null);
  const change = useRef(onChange);
  change.current = onChange;
  useEffect(() => {
    const v = new EditorView({
      doc: value,
      parent: host.current!,
      extensions: [
        basicSetup,
        liquid({ base: html() }),
        EditorView.lineWrapping,
        EditorView.updateListener.of((u) => {
          if (u.docChanged) change.current(u.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ id, 'aria-label': label, 'aria-multiline': 'true' }),
      ],
    });
    view.current = v;
    return () => v.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);
  useEffect(() => {
    const content = view.current?.contentDOM;
    if (!content) return;
    if (describedBy) content.setAttribute('aria-describedby', describedBy);
    else content.removeAttribute('aria-describedby');
    if (invalid) content.setAttribute('aria-invalid', 'true');
    else content.removeAttribute('aria-invalid');
  }, [describedBy, invalid]);
  return <div ref={host} className={invalid ? 'code-editor invalid' : 'code-editor'} />;
}
