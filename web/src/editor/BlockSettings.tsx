// The settings of the selected block (its own fields, then its style: padding, colours, font, alignment)
// and the email's global style (width, backgrounds, font, text and link colours).
import { useState } from 'react';
import type { Image } from '../api/editor.ts';
import { ColorInput, NumberInput, SelectInput, TextInput } from './fields.tsx';
import {
  FONTS,
  NETWORKS,
  newBlock,
  SAFE_HREF,
  type Align,
  type Block,
  type BlockStyle,
  type GlobalStyle,
  type Network,
} from './document.ts';
import { IMAGE_TYPES, ImageLibrary } from './ImageLibrary.tsx';

const ALIGNS: { value: Align | ''; label: string }[] = [
  { value: '', label: 'Default' },
  { value: 'left', label: 'Left' },
  { value: 'center', label: 'Centre' },
  { value: 'right', label: 'Right' },
];
const FONT_OPTIONS = [{ value: '', label: 'The email’s font' }, ...FONTS];
const SIDES = ['Top', 'Right', 'Bottom', 'Left'] as const;

const badHref = (href: string) => !!href.trim() && href.trim() !== 'https://' && !SAFE_HREF.test(href.trim());

export function BlockSettings({
  block: b,
  set,
  setStyle,
  placeImage,
  upload,
  uploading,
}: {
  block: Block;
  set: (change: Partial<Block>, key?: string) => void;
  setStyle: (s: BlockStyle, key?: string) => void;
  placeImage: (img: Image) => void;
  upload: (file: File) => void;
  uploading: boolean;
}) {
  const [library, setLibrary] = useState(false);
  const key = (field: string) => `${b.id}:${field}`;
  const own = (() => {
    switch (b.type) {
      case 'heading':
        return (
          <SelectInput
            label="Level"
            value={String(b.level) as '1' | '2' | '3'}
            options={[
              { value: '1', label: 'Title (H1)' },
              { value: '2', label: 'Section (H2)' },
              { value: '3', label: 'Small (H3)' },
            ]}
            onChange={(v) => set({ level: Number(v ?? 1) as 1 | 2 | 3 })}
          />
        );
      case 'image':
        return (
          <>
            <div className="buttons be-wide">
              <label className="button small secondary">
                {uploading ? 'Uploading…' : b.src ? 'Replace with a file' : 'Upload a file'}
                <input
                  type="file"
                  accept={IMAGE_TYPES}
                  className="visually-hidden"
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    e.target.value = '';
                    if (file) upload(file);
                  }}
                />
              </label>
              <button
                type="button"
                className="small secondary"
                aria-expanded={library}
                onClick={() => setLibrary(!library)}
              >
                Choose from the library
              </button>
            </div>
            {library && (
              <div className="be-wide">
                <ImageLibrary
                  onPick={(img) => {
                    placeImage(img);
                    setLibrary(false);
                  }}
                  onClose={() => setLibrary(false)}
                />
              </div>
            )}
            <TextInput
              label="Image address"
              value={b.src}
              onChange={(src) => set({ src, imageId: undefined }, key('src'))}
              type="url"
            />
            <TextInput
              label="Alternative text"
              value={b.alt}
              onChange={(alt) => set({ alt }, key('alt'))}
              hint="Read aloud, and shown where images are off."
            />
            <TextInput
              label="Link (optional)"
              value={b.href ?? ''}
              onChange={(href) => set({ href: href || undefined }, key('href'))}
              invalid={badHref(b.href ?? '')}
              type="url"
            />
            <NumberInput
              label="Width (px)"
              value={b.width}
              min={16}
              max={1200}
              onChange={(width) => set({ width })}
              placeholder="full"
            />
          </>
        );
      case 'button':
        return (
          <>
            <TextInput label="Button text" value={b.text} onChange={(text) => set({ text }, key('text'))} />
            <TextInput
              label="Link"
              value={b.href}
              onChange={(href) => set({ href }, key('href'))}
              invalid={badHref(b.href)}
              hint="A web address, mailto: or a merge tag such as {{ subscriber.custom_fields.url }}."
            />
            <ColorInput label="Button colour" value={b.color} fallback="#2563eb" onChange={(color) => set({ color })} />
            <ColorInput
              label="Text colour"
              value={b.textColor}
              fallback="#ffffff"
              onChange={(textColor) => set({ textColor })}
            />
          </>
        );
      case 'columns':
        return (
          <SelectInput
            label="Columns"
            value={String(b.columns.length) as '2' | '3'}
            options={[
              { value: '2', label: 'Two' },
              { value: '3', label: 'Three' },
            ]}
            onChange={(v) => {
              const n = Number(v ?? 2);
              if (n === b.columns.length) return;
              // fewer columns: the last one's blocks join the one before, nothing is dropped
              const columns =
                n > b.columns.length
                  ? [...b.columns, [newBlock('text')]]
                  : [b.columns[0]!, [...b.columns[1]!, ...(b.columns[2] ?? [])]];
              set({ columns });
            }}
          />
        );
      case 'divider':
        return (
          <>
            <ColorInput label="Line colour" value={b.color} fallback="#e5e7eb" onChange={(color) => set({ color })} />
            <NumberInput
              label="Thickness (px)"
              value={b.thickness}
              min={1}
              max={10}
              onChange={(thickness) => set({ thickness })}
            />
          </>
        );
      case 'spacer':
        return (
          <NumberInput
            label="Height (px)"
            value={b.height}
            min={4}
            max={200}
            onChange={(height) => set({ height: height ?? 24 })}
          />
        );
      case 'social':
        return (
          <div className="be-wide be-social-edit">
            {b.links.map((l, i) => (
              <div className="be-row" key={i}>
                <SelectInput
                  label={`Network ${i + 1}`}
                  value={l.network}
                  options={NETWORKS.map((n) => ({
                    value: n,
                    label: n === 'x' ? 'X' : n[0]!.toUpperCase() + n.slice(1),
                  }))}
                  onChange={(network) =>
                    set({
                      links: b.links.map((x, j) =>
                        j === i ? { ...x, network: (network ?? 'website') as Network } : x,
                      ),
                    })
                  }
                />
                <TextInput
                  label={`Address ${i + 1}`}
                  value={l.url}
                  type="url"
                  invalid={badHref(l.url)}
                  onChange={(url) =>
                    set({ links: b.links.map((x, j) => (j === i ? { ...x, url } : x)) }, key(`url${i}`))
                  }
                />
                <button
                  type="button"
                  className="small danger-outline"
                  aria-label={`Remove link ${i + 1}`}
                  onClick={() => set({ links: b.links.filter((_, j) => j !== i) })}
                >
                  Remove
                </button>
              </div>
            ))}
            <button
              type="button"
              className="small secondary"
              onClick={() => set({ links: [...b.links, { network: 'website', url: 'https://' }] })}
            >
              Add a link
            </button>
          </div>
        );
      case 'html':
        return (
          <p className="hint be-wide">
            Scripts, event handlers and javascript: links are removed when the email is rendered.
          </p>
        );
      case 'footer':
        return (
          <TextInput
            label="Footer text"
            value={b.text ?? ''}
            onChange={(text) => set({ text }, key('text'))}
            hint="The account’s name, postal address and the unsubscribe link are always added."
          />
        );
      default:
        return null;
    }
  })();
  const s = b.style ?? {};
  const padding = s.padding ?? [10, 25, 10, 25];
  return (
    <div className="be-settings" onClick={(e) => e.stopPropagation()}>
      {own && <div className="be-grid">{own}</div>}
      <details className="be-style">
        <summary>Style</summary>
        <div className="be-grid">
          {SIDES.map((side, i) => (
            <NumberInput
              key={side}
              label={`Padding ${side.toLowerCase()}`}
              value={s.padding?.[i]}
              placeholder={String(padding[i])}
              min={0}
              max={200}
              onChange={(v) => {
                const next = [...padding] as [number, number, number, number];
                next[i] = v ?? 0;
                setStyle({ ...s, padding: next }, key('padding'));
              }}
            />
          ))}
          <ColorInput
            label="Background"
            value={s.background}
            fallback="#ffffff"
            onChange={(background) => setStyle({ ...s, background })}
          />
          <ColorInput
            label="Text colour"
            value={s.color}
            fallback="#1f2937"
            onChange={(color) => setStyle({ ...s, color })}
          />
          <SelectInput
            label="Alignment"
            value={s.align}
            options={ALIGNS}
            onChange={(align) => setStyle({ ...s, align })}
          />
          <SelectInput
            label="Font"
            value={s.fontFamily}
            options={FONT_OPTIONS}
            onChange={(fontFamily) => setStyle({ ...s, fontFamily })}
          />
          <NumberInput
            label="Font size (px)"
            value={s.fontSize}
            min={8}
            max={72}
            onChange={(fontSize) => setStyle({ ...s, fontSize }, key('size'))}
          />
        </div>
      </details>
    </div>
  );
}

export function GlobalStylePanel({ style, onChange }: { style: GlobalStyle; onChange: (s: GlobalStyle) => void }) {
  return (
    <div className="be-global" role="group" aria-label="Email style">
      <div className="be-grid">
        <NumberInput
          label="Width (px)"
          value={style.width}
          min={320}
          max={900}
          step={10}
          onChange={(width) => onChange({ ...style, width: width ?? 600 })}
        />
        <SelectInput
          label="Font"
          value={style.fontFamily}
          options={FONTS}
          onChange={(fontFamily) => onChange({ ...style, fontFamily: fontFamily ?? FONTS[0]!.value })}
        />
        <ColorInput
          label="Page background"
          value={style.background}
          optional={false}
          onChange={(background) => onChange({ ...style, background: background! })}
        />
        <ColorInput
          label="Content background"
          value={style.contentBackground}
          optional={false}
          onChange={(contentBackground) => onChange({ ...style, contentBackground: contentBackground! })}
        />
        <ColorInput
          label="Text colour"
          value={style.textColor}
          optional={false}
          onChange={(textColor) => onChange({ ...style, textColor: textColor! })}
        />
        <ColorInput
          label="Link colour"
          value={style.linkColor}
          optional={false}
          onChange={(linkColor) => onChange({ ...style, linkColor: linkColor! })}
        />
      </div>
    </div>
  );
}
