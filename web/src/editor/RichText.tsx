// A text block's rich text, edited in place with tiptap (ProseMirror): bold, italic, underline, strike,
// links, bulleted and numbered lists, text colour, merge tags. The marks offered are exactly the tags the
// server keeps (p br strong em u s a ul ol li span[style=color]); alignment is the block's own style, so
// the toolbar's alignment buttons set that instead of an attribute the server would strip.
import { EditorContent, useEditor, useEditorState } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { Color, TextStyle } from '@tiptap/extension-text-style';
import { useState } from 'react';
import { SAFE_HREF, type Align } from './document.ts';
import { MergeTagPicker } from './MergeTagPicker.tsx';

export default function RichText({
  html,
  onChange,
  label,
  selected,
  align,
  onAlign,
  color,
}: {
  html: string;
  onChange: (html: string) => void;
  label: string;
  /** the toolbar shows only on the selected block, so a long newsletter is not a wall of buttons */
  selected: boolean;
  align?: Align;
  onAlign: (a: Align) => void;
  color?: string;
}) {
  // the html is read once: the canvas gives the editor a new key when the html changes from outside
  // (undo, redo, a template), because echoing its own updates back would undo keys typed since
  const editor = useEditor({
    extensions: [
      StarterKit.configure({
        heading: { levels: [1, 2, 3] },
        code: false,
        codeBlock: false,
        blockquote: false,
        horizontalRule: false,
        link: { openOnClick: false, autolink: true, protocols: ['mailto'], isAllowedUri: (u) => SAFE_HREF.test(u) },
      }),
      TextStyle,
      Color,
    ],
    content: html,
    editorProps: { attributes: { 'aria-label': label, role: 'textbox', 'aria-multiline': 'true', class: 'be-rich' } },
    onUpdate: ({ editor: e }) => onChange(e.getHTML()),
  });
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) =>
      e
        ? {
            bold: e.isActive('bold'),
            italic: e.isActive('italic'),
            underline: e.isActive('underline'),
            strike: e.isActive('strike'),
            link: e.isActive('link'),
            bullet: e.isActive('bulletList'),
            ordered: e.isActive('orderedList'),
            href: (e.getAttributes('link').href as string | undefined) ?? '',
            color: (e.getAttributes('textStyle').color as string | undefined) ?? '',
          }
        : undefined,
  });
  const [linking, setLinking] = useState<string>();
  if (!editor) return null;
  const chain = () => editor.chain().focus();
  const mark = (name: string, active: boolean | undefined, run: () => void, text: string) => (
    <button
      type="button"
      className={`be-tool${active ? ' active' : ''}`}
      aria-pressed={!!active}
      aria-label={name}
      title={name}
      onMouseDown={(e) => e.preventDefault()}
      onClick={run}
    >
      {text}
    </button>
  );
  const applyLink = () => {
    const href = (linking ?? '').trim();
    if (!href) chain().extendMarkRange('link').unsetLink().run();
    else if (SAFE_HREF.test(href)) chain().extendMarkRange('link').setLink({ href }).run();
    setLinking(undefined);
  };
  return (
    <div className="be-richtext" style={{ textAlign: align, color }}>
      {selected && (
        <div className="be-rt-toolbar" role="toolbar" aria-label={`Formatting of ${label}`}>
          {mark('Bold', state?.bold, () => chain().toggleBold().run(), 'B')}
          {mark('Italic', state?.italic, () => chain().toggleItalic().run(), 'I')}
          {mark('Underline', state?.underline, () => chain().toggleUnderline().run(), 'U')}
          {mark('Strikethrough', state?.strike, () => chain().toggleStrike().run(), 'S')}
          {mark('Bulleted list', state?.bullet, () => chain().toggleBulletList().run(), '•')}
          {mark('Numbered list', state?.ordered, () => chain().toggleOrderedList().run(), '1.')}
          {mark('Link', state?.link, () => setLinking(state?.href || 'https://'), 'Link')}
          {(['left', 'center', 'right'] as const).map((a) =>
            mark(
              `Align ${a}`,
              (align ?? 'left') === a,
              () => onAlign(a),
              a === 'left' ? '⇤' : a === 'center' ? '↔' : '⇥',
            ),
          )}
          <label className="be-tool be-color" title="Text colour">
            <span className="visually-hidden">Text colour</span>
            <input
              type="color"
              value={state?.color?.startsWith('#') ? state.color : '#1f2937'}
              onChange={(e) => chain().setColor(e.target.value).run()}
            />
          </label>
          {mark('Remove colour', false, () => chain().unsetColor().run(), 'No colour')}
          <MergeTagPicker
            target="the text"
            compact
            onPick={(liquid) => editor.chain().focus().insertContent({ type: 'text', text: liquid }).run()}
          />
        </div>
      )}
      {selected && linking !== undefined && (
        <div className="be-link-row">
          <label>
            Link address
            <input
              type="url"
              value={linking}
              autoFocus
              onChange={(e) => setLinking(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') (e.preventDefault(), applyLink());
                if (e.key === 'Escape') setLinking(undefined);
              }}
              aria-invalid={!!linking.trim() && !SAFE_HREF.test(linking.trim())}
            />
          </label>
          <button type="button" className="small" onClick={applyLink}>
            {linking.trim() ? 'Apply link' : 'Remove link'}
          </button>
          <button type="button" className="small secondary" onClick={() => setLinking(undefined)}>
            Cancel
          </button>
        </div>
      )}
      <EditorContent editor={editor} />
    </div>
  );
}
