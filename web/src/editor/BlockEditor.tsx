// The visual email editor: a palette of blocks dragged (or clicked) onto a canvas, each block edited in
// place with its settings under it, a global style, undo/redo and a phone/desktop width. It only edits
// the block document (content_format "blocks"): the server renders that to the email, so what the canvas
// shows is a close likeness and the preview beside it is the real thing. Drag and drop is @dnd-kit
// (pointer and keyboard); every drag has a button alternative (Add, Move up/down) for keyboard users.
import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  pointerWithin,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
  type CollisionDetection,
  type DragEndEvent,
  type DragMoveEvent,
} from '@dnd-kit/core';
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type CSSProperties, type DragEvent } from 'react';
import type { Image } from '../api/editor.ts';
import { Alert } from '../ui.tsx';
import { BlockSettings, GlobalStylePanel } from './BlockSettings.tsx';
import {
  BLOCK_KINDS,
  cloneBlock,
  findBlock,
  insertAt,
  labelOf,
  mapBlock,
  moveBlock,
  newBlock,
  readDocument,
  writeDocument,
  type Block,
  type BlockDocument,
  type BlockStyle,
  type BlockType,
  type Place,
} from './document.ts';
import { IMAGE_TYPES, useUpload } from './ImageLibrary.tsx';
import './editor.css';

// tiptap and ProseMirror are most of the editor's code and only a text block needs them: they load in a
// chunk of their own, fetched as soon as the editor shows, so the canvas takes blocks before they arrive
const loadRichText = () => import('./RichText.tsx');
const RichText = lazy(loadRichText);

export interface BlockEditorProps {
  /** the document as stored (content_source) */
  value: string;
  onChange: (source: string) => void;
  /** what is being written, for the accessible names ("Campaign content") */
  label: string;
}

// ---- history: every change is a step; typing in one field within a second is one step ----

interface History {
  past: BlockDocument[];
  present: BlockDocument;
  future: BlockDocument[];
  key?: string;
  at: number;
  /** counts the changes that did not come from typing in the canvas (undo, redo, a new value) */
  revision: number;
}
const LIMIT = 100;

function useHistory(initial: () => BlockDocument) {
  const [h, setH] = useState<History>(() => ({ past: [], present: initial(), future: [], at: 0, revision: 0 }));
  const commit = useCallback((next: (d: BlockDocument) => BlockDocument, key?: string) => {
    setH((s) => {
      const present = next(s.present);
      // a change that leaves the document as it was (a field written back unchanged when it loses focus)
      // is no step: undo must take back what the user did, not an invisible no-op
      if (present === s.present || JSON.stringify(present) === JSON.stringify(s.present)) return s;
      const now = Date.now();
      if (key && key === s.key && now - s.at < 1000) return { ...s, present, at: now };
      return { past: [...s.past.slice(-LIMIT), s.present], present, future: [], key, at: now, revision: s.revision };
    });
  }, []);
  const undo = useCallback(
    () =>
      setH((s) =>
        s.past.length
          ? {
              past: s.past.slice(0, -1),
              present: s.past[s.past.length - 1]!,
              future: [s.present, ...s.future],
              at: 0,
              revision: s.revision + 1,
            }
          : s,
      ),
    [],
  );
  const redo = useCallback(
    () =>
      setH((s) =>
        s.future.length
          ? {
              past: [...s.past, s.present],
              present: s.future[0]!,
              future: s.future.slice(1),
              at: 0,
              revision: s.revision + 1,
            }
          : s,
      ),
    [],
  );
  return {
    doc: h.present,
    revision: h.revision,
    canUndo: h.past.length > 0,
    canRedo: h.future.length > 0,
    commit,
    undo,
    redo,
  };
}

// ---- drag and drop: what a droppable is, and which one wins when several are under the pointer ----

type DropData =
  | { kind: 'block'; place: Place; index: number; nested: boolean }
  | { kind: 'column'; place: Place; index: number }
  | { kind: 'canvas'; index: number };
type DragData = { newType: BlockType } | { blockId: string; isColumns: boolean };

const RANK = { block: 0, column: 1, canvas: 3 } as const;

/** The innermost target under the pointer (a block inside a column before the column before the canvas). */
const collision: CollisionDetection = (args) => {
  const drag = args.active.data.current as DragData | undefined;
  const carriesColumns = !!drag && ('newType' in drag ? drag.newType === 'columns' : drag.isColumns);
  const activeId = drag && 'blockId' in drag ? drag.blockId : undefined;
  const allowed = args.droppableContainers.filter((c) => {
    const d = c.data.current as DropData | undefined;
    if (!d) return false;
    if (String(c.id) === `drop:${activeId}`) return false;
    // a block cannot go inside itself, and columns do not nest
    if (d.kind !== 'canvas' && d.place.parent && (carriesColumns || d.place.parent === activeId)) return false;
    return true;
  });
  const rank = (id: string | number) => {
    const d = allowed.find((c) => c.id === id)?.data.current as DropData | undefined;
    if (!d) return 9;
    return d.kind === 'block' ? (d.nested ? 0 : 2) : RANK[d.kind];
  };
  const within = pointerWithin({ ...args, droppableContainers: allowed });
  if (within.length) return [...within].sort((a, b) => rank(a.id) - rank(b.id));
  return closestCenter({ ...args, droppableContainers: allowed });
};

export default function BlockEditor({ value, onChange, label }: BlockEditorProps) {
  const { doc, revision, commit, undo, redo, canUndo, canRedo } = useHistory(() => readDocument(value));
  const emitted = useRef<string>(undefined);
  const [selected, setSelected] = useState<string>();
  const [width, setWidth] = useState<'desktop' | 'phone'>('desktop');
  const [styling, setStyling] = useState(false);
  const [dragging, setDragging] = useState<DragData>();
  const [over, setOver] = useState<{ id: string; after: boolean }>();
  const [fileOver, setFileOver] = useState(false);
  const [announce, setAnnounce] = useState('');
  const upload = useUpload();
  useEffect(() => void loadRichText(), []);

  // the page hears about every change. The value is read once: a page that replaces the content (a
  // template, another format) gives the editor a new key, because the page's echo of a change can arrive
  // after the next key was typed, and taking it as new content would undo that key.
  useEffect(() => {
    const source = writeDocument(doc);
    // the first run is the document as loaded (maybe normalised): not a change the user made
    if (emitted.current === undefined) emitted.current = source;
    else if (source !== emitted.current) {
      emitted.current = source;
      onChange(source);
    }
  }, [doc, onChange]);

  const update = (id: string, change: (b: Block) => Block, key?: string) =>
    commit((d) => ({ ...d, blocks: mapBlock(d.blocks, id, change) }), key);
  const remove = (id: string) => {
    commit((d) => ({ ...d, blocks: mapBlock(d.blocks, id, () => null) }));
    setAnnounce('Block deleted.');
    if (selected === id) setSelected(undefined);
  };
  const duplicate = (id: string) =>
    commit((d) => {
      const found = findBlock(d.blocks, id);
      if (!found) return d;
      const copy = cloneBlock(found.block);
      setSelected(copy.id);
      return { ...d, blocks: insertAt(d.blocks, found.place, found.list.indexOf(found.block) + 1, copy) };
    });
  const nudge = (id: string, by: -1 | 1) =>
    commit((d) => {
      const found = findBlock(d.blocks, id);
      if (!found) return d;
      const at = found.list.indexOf(found.block) + by;
      if (at < 0 || at >= found.list.length) return d;
      setAnnounce(`${labelOf(found.block.type)} moved ${by < 0 ? 'up' : 'down'}.`);
      return { ...d, blocks: moveBlock(d.blocks, id, found.place, at) };
    });
  /** Adds a block after the selected top-level block (or at the end), and selects it. */
  const add = (type: BlockType) => {
    const block = newBlock(type);
    commit((d) => {
      const found = selected ? findBlock(d.blocks, selected) : undefined;
      const at = found
        ? d.blocks.indexOf(found.place.parent ? d.blocks.find((b) => b.id === found.place.parent)! : found.block) + 1
        : d.blocks.length;
      return { ...d, blocks: insertAt(d.blocks, {}, at, block) };
    });
    setSelected(block.id);
    setAnnounce(`${labelOf(type)} added.`);
  };

  // a file dropped on an image block fills it; dropped elsewhere it becomes a new image block
  const placeImage = (img: Image, into?: string) => {
    const fields = { src: img.url, imageId: img.id, width: Math.min(img.width, doc.style.width), alt: '' };
    if (into) update(into, (b) => (b.type === 'image' ? { ...b, ...fields, alt: b.alt } : b));
    else {
      const block = { ...newBlock('image'), ...fields } as Block;
      commit((d) => ({ ...d, blocks: [...d.blocks, block] }));
      setSelected(block.id);
    }
  };
  const onFileDrop = (e: DragEvent) => {
    if (!e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    setFileOver(false);
    const file =
      [...e.dataTransfer.files].find((f) => IMAGE_TYPES.split(',').includes(f.type)) ?? e.dataTransfer.files[0];
    if (!file) return;
    const into = (e.target as HTMLElement).closest<HTMLElement>('[data-image-block]')?.dataset.imageBlock;
    upload.mutate(file, { onSuccess: (img) => placeImage(img, into) });
  };

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor),
  );
  const targetOf = (e: DragMoveEvent | DragEndEvent) => {
    if (!e.over) return undefined;
    const d = e.over.data.current as DropData;
    if (d.kind !== 'block') return { place: d.kind === 'canvas' ? {} : d.place, index: d.index, id: undefined };
    // the pointer's height decides before/after; a keyboard drag has no pointer, so the moved box's middle does
    const start = e.activatorEvent as Partial<PointerEvent>;
    const r = e.active.rect.current.translated;
    const y = typeof start.clientY === 'number' ? start.clientY + e.delta.y : r ? r.top + r.height / 2 : 0;
    const after = y > e.over.rect.top + e.over.rect.height / 2;
    return { place: d.place, index: d.index + (after ? 1 : 0), id: String(e.over.id).slice(5), after };
  };
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(undefined);
    setOver(undefined);
    const target = targetOf(e);
    const drag = e.active.data.current as DragData;
    if (!target) return;
    if ('newType' in drag) {
      const block = newBlock(drag.newType);
      commit((d) => ({ ...d, blocks: insertAt(d.blocks, target.place, target.index, block) }));
      setSelected(block.id);
      setAnnounce(`${labelOf(drag.newType)} added.`);
      return;
    }
    commit((d) => {
      const found = findBlock(d.blocks, drag.blockId);
      if (!found) return d;
      let index = target.index;
      const from = found.list.indexOf(found.block);
      const sameList =
        (found.place.parent ?? '') === (target.place.parent ?? '') && found.place.column === target.place.column;
      if (sameList && from < index) index -= 1;
      if (sameList && from === index) return d;
      return { ...d, blocks: moveBlock(d.blocks, drag.blockId, target.place, index) };
    });
    setAnnounce('Block moved.');
  };

  const keys = (e: React.KeyboardEvent) => {
    const t = e.target as HTMLElement;
    // inputs and the text blocks keep their own undo
    if (t.closest('input, textarea, select, [contenteditable="true"]')) return;
    if (!(e.ctrlKey || e.metaKey) || (e.key.toLowerCase() !== 'z' && e.key.toLowerCase() !== 'y')) return;
    e.preventDefault();
    if (e.key.toLowerCase() === 'y' || e.shiftKey) redo();
    else undo();
  };

  const canvasStyle: CSSProperties = {
    width: width === 'phone' ? 375 : doc.style.width,
    background: doc.style.contentBackground,
    fontFamily: doc.style.fontFamily,
    color: doc.style.textColor,
    ['--be-link' as string]: doc.style.linkColor,
  };
  const common = {
    revision,
    selected,
    select: setSelected,
    update,
    remove,
    duplicate,
    nudge,
    over,
    dragging,
    placeImage,
    upload: (file: File, into: string) => upload.mutate(file, { onSuccess: (img) => placeImage(img, into) }),
    uploading: upload.isPending,
  };
  return (
    <div className="be" onKeyDown={keys} role="group" aria-label={`${label}: visual editor`}>
      <div className="be-toolbar" role="toolbar" aria-label="Editor">
        <button
          type="button"
          className="small secondary"
          onClick={undo}
          disabled={!canUndo}
          aria-keyshortcuts="Control+Z"
        >
          Undo
        </button>
        <button
          type="button"
          className="small secondary"
          onClick={redo}
          disabled={!canRedo}
          aria-keyshortcuts="Control+Shift+Z"
        >
          Redo
        </button>
        <span className="be-seg" role="group" aria-label="Canvas width">
          {(['desktop', 'phone'] as const).map((w) => (
            <button
              type="button"
              key={w}
              className={`small ${width === w ? '' : 'secondary'}`}
              aria-pressed={width === w}
              onClick={() => setWidth(w)}
            >
              {w === 'desktop' ? 'Desktop' : 'Phone'}
            </button>
          ))}
        </span>
        <button type="button" className="small secondary" aria-expanded={styling} onClick={() => setStyling((s) => !s)}>
          Email style
        </button>
      </div>
      {styling && (
        <GlobalStylePanel style={doc.style} onChange={(style) => commit((d) => ({ ...d, style }), 'global-style')} />
      )}
      <DndContext
        sensors={sensors}
        collisionDetection={collision}
        // the page scrolls only when the pointer is close to the window's edge, not a fifth of it away
        autoScroll={{ threshold: { x: 0, y: 0.08 } }}
        onDragStart={(e) => setDragging(e.active.data.current as DragData)}
        onDragMove={(e) => {
          const t = targetOf(e);
          const next = t?.id ? { id: t.id, after: !!t.after } : undefined;
          setOver((o) => (o?.id === next?.id && o?.after === next?.after ? o : next));
        }}
        onDragCancel={() => (setDragging(undefined), setOver(undefined))}
        onDragEnd={onDragEnd}
        accessibility={{
          screenReaderInstructions: {
            draggable:
              'To pick up a block, press space or enter. Use the arrow keys to move it, space or enter to drop it, escape to cancel.',
          },
        }}
      >
        <div className="be-body">
          <div className="be-palette" role="group" aria-label="Blocks to add">
            {BLOCK_KINDS.map((k) => (
              <PaletteItem key={k.type} type={k.type} label={k.label} hint={k.hint} onAdd={() => add(k.type)} />
            ))}
          </div>
          <div
            className={`be-stage${fileOver ? ' be-file-over' : ''}`}
            style={{ background: doc.style.background }}
            onDragOver={(e) => {
              if (e.dataTransfer.types.includes('Files')) (e.preventDefault(), setFileOver(true));
            }}
            onDragLeave={() => setFileOver(false)}
            onDrop={onFileDrop}
          >
            <Canvas count={doc.blocks.length} style={canvasStyle}>
              {doc.blocks.length === 0 && (
                <p className="be-empty">
                  Drag blocks here from the left, click one to add it, or drop an image file. Start with a heading.
                </p>
              )}
              {doc.blocks.map((b, i) => (
                <BlockFrame key={b.id} block={b} index={i} place={{}} {...common} />
              ))}
            </Canvas>
            {upload.isPending && (
              <p className="be-uploading" role="status">
                Uploading the image…
              </p>
            )}
            <Alert error={upload.error} />
          </div>
        </div>
        <DragOverlay dropAnimation={null}>
          {dragging && (
            <span className="be-drag-chip">
              {'newType' in dragging
                ? labelOf(dragging.newType)
                : labelOf(findBlock(doc.blocks, dragging.blockId)?.block.type ?? 'text')}
            </span>
          )}
        </DragOverlay>
      </DndContext>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announce}
      </p>
    </div>
  );
}

function PaletteItem({
  type,
  label,
  hint,
  onAdd,
}: {
  type: BlockType;
  label: string;
  hint: string;
  onAdd: () => void;
}) {
  const { setNodeRef, listeners, attributes, isDragging } = useDraggable({
    id: `new:${type}`,
    data: { newType: type },
  });
  return (
    <button
      type="button"
      ref={setNodeRef}
      {...attributes}
      {...listeners}
      // the keyboard's Enter/Space add the block where it is simplest: after the selected one
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') (e.preventDefault(), onAdd());
      }}
      onClick={onAdd}
      className={`be-palette-item${isDragging ? ' dragging' : ''}`}
      data-block-type={type}
      aria-label={`Add ${label}`}
      title={hint}
    >
      <span className={`be-icon be-icon-${type}`} aria-hidden="true" />
      {label}
    </button>
  );
}

function Canvas({ children, style, count }: { children: React.ReactNode; style: CSSProperties; count: number }) {
  const { setNodeRef, isOver } = useDroppable({
    id: 'canvas',
    data: { kind: 'canvas', index: count } satisfies DropData,
  });
  return (
    <div ref={setNodeRef} className={`be-canvas${isOver ? ' over' : ''}`} style={style} data-testid="canvas">
      {children}
    </div>
  );
}

interface FrameProps {
  revision: number;
  block: Block;
  index: number;
  place: Place;
  selected?: string;
  select: (id: string | undefined) => void;
  update: (id: string, change: (b: Block) => Block, key?: string) => void;
  remove: (id: string) => void;
  duplicate: (id: string) => void;
  nudge: (id: string, by: -1 | 1) => void;
  over?: { id: string; after: boolean };
  dragging?: DragData;
  placeImage: (img: Image, into?: string) => void;
  upload: (file: File, into: string) => void;
  uploading: boolean;
}

/** One block on the canvas: its likeness, its tools when hovered or selected, its settings when selected. */
function BlockFrame(props: FrameProps) {
  const { block: b, index, place, selected, select, update, remove, duplicate, nudge, over } = props;
  const nested = !!place.parent;
  const drop = useDroppable({ id: `drop:${b.id}`, data: { kind: 'block', place, index, nested } satisfies DropData });
  const drag = useDraggable({ id: `drag:${b.id}`, data: { blockId: b.id, isColumns: b.type === 'columns' } });
  const isSelected = selected === b.id;
  const name = labelOf(b.type);
  const style = blockStyle(b.style);
  const set = (change: Partial<Block>, key?: string) => update(b.id, (x) => ({ ...x, ...change }) as Block, key);
  const setStyle = (s: BlockStyle, key?: string) => update(b.id, (x) => ({ ...x, style: s }), key);
  return (
    <div
      ref={(el) => {
        drop.setNodeRef(el);
        drag.setNodeRef(el);
      }}
      className={[
        'be-block',
        `be-block-${b.type}`,
        isSelected && 'selected',
        drag.isDragging && 'dragging',
        over?.id === b.id && (over.after ? 'drop-after' : 'drop-before'),
      ]
        .filter(Boolean)
        .join(' ')}
      data-block-id={b.id}
      data-block={b.type}
      onClick={(e) => {
        e.stopPropagation();
        if (!isSelected) select(b.id);
      }}
    >
      <div className="be-block-tools" role="toolbar" aria-label={`${name} block`}>
        <button
          type="button"
          className="be-tool be-handle"
          ref={drag.setActivatorNodeRef}
          {...drag.listeners}
          {...drag.attributes}
          aria-label={`Drag ${name}`}
          title="Drag to move"
        >
          ⠿
        </button>
        <button
          type="button"
          className="be-tool be-name"
          aria-expanded={isSelected}
          onClick={(e) => (e.stopPropagation(), select(isSelected ? undefined : b.id))}
        >
          {name}
        </button>
        <button type="button" className="be-tool" aria-label={`Move ${name} up`} onClick={() => nudge(b.id, -1)}>
          ↑
        </button>
        <button type="button" className="be-tool" aria-label={`Move ${name} down`} onClick={() => nudge(b.id, 1)}>
          ↓
        </button>
        <button type="button" className="be-tool" aria-label={`Duplicate ${name}`} onClick={() => duplicate(b.id)}>
          Copy
        </button>
        <button type="button" className="be-tool danger" aria-label={`Delete ${name}`} onClick={() => remove(b.id)}>
          ✕
        </button>
      </div>
      <div className="be-block-body" style={style}>
        <BlockView {...props} set={set} setStyle={setStyle} />
      </div>
      {isSelected && (
        <BlockSettings
          block={b}
          set={set}
          setStyle={setStyle}
          placeImage={(img) => props.placeImage(img, b.id)}
          upload={(file) => props.upload(file, b.id)}
          uploading={props.uploading}
        />
      )}
    </div>
  );
}

export function blockStyle(s: BlockStyle | undefined): CSSProperties {
  if (!s) return {};
  return {
    padding: s.padding ? s.padding.map((p) => `${p}px`).join(' ') : undefined,
    background: s.background,
    color: s.color,
    textAlign: s.align,
    fontFamily: s.fontFamily,
    fontSize: s.fontSize,
  };
}

const HEADING_SIZE = { 1: 30, 2: 24, 3: 19 } as const;

function BlockView(
  props: FrameProps & {
    set: (change: Partial<Block>, key?: string) => void;
    setStyle: (s: BlockStyle, key?: string) => void;
  },
) {
  const { block: b, set, setStyle, selected } = props;
  switch (b.type) {
    case 'heading':
      return (
        <input
          className="be-heading-input"
          style={{
            fontSize: b.style?.fontSize ?? HEADING_SIZE[b.level],
            textAlign: b.style?.align,
            color: b.style?.color,
          }}
          value={b.text}
          aria-label={`Heading text`}
          onChange={(e) => set({ text: e.target.value }, `${b.id}:text`)}
        />
      );
    case 'text':
      return (
        <Suspense fallback={<p className="muted be-rich-loading">Loading the text editor…</p>}>
          <RichText
            key={props.revision}
            html={b.html}
            label="Text"
            selected={selected === b.id}
            onChange={(html) => set({ html }, `${b.id}:html`)}
            align={b.style?.align}
            color={b.style?.color}
            onAlign={(align) => setStyle({ ...b.style, align })}
          />
        </Suspense>
      );
    case 'image':
      return (
        <div className="be-image" data-image-block={b.id} style={{ textAlign: b.style?.align ?? 'center' }}>
          {b.src ? (
            <img src={b.src} alt={b.alt} style={{ width: b.width ? `${b.width}px` : undefined }} />
          ) : (
            <div className="be-image-empty">
              <p>Drop an image file here, or</p>
              <label className="button small">
                Choose a file
                <input
                  type="file"
                  accept={IMAGE_TYPES}
                  className="visually-hidden"
                  aria-label="Choose an image file"
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    e.target.value = '';
                    if (file) props.upload(file, b.id);
                  }}
                />
              </label>
            </div>
          )}
        </div>
      );
    case 'button':
      return (
        <div style={{ textAlign: b.style?.align ?? 'center' }}>
          <span className="be-button" style={{ background: b.color ?? '#2563eb', color: b.textColor ?? '#ffffff' }}>
            {b.text || 'Button'}
          </span>
        </div>
      );
    case 'columns':
      return (
        <div className="be-columns" style={{ gridTemplateColumns: `repeat(${b.columns.length}, minmax(0, 1fr))` }}>
          {b.columns.map((col, i) => (
            <Column key={i} parent={b.id} column={i} blocks={col} frame={props} />
          ))}
        </div>
      );
    case 'divider':
      return <hr className="be-divider" style={{ borderTop: `${b.thickness ?? 1}px solid ${b.color ?? '#e5e7eb'}` }} />;
    case 'spacer':
      return <div className="be-spacer" style={{ height: b.height }} aria-label={`Space of ${b.height} px`} />;
    case 'social':
      return (
        <div className="be-social" style={{ textAlign: b.style?.align ?? 'center' }}>
          {b.links.map((l, i) => (
            <span key={i} className="be-social-link">
              {l.network}
            </span>
          ))}
          {b.links.length === 0 && <span className="muted">No links yet</span>}
        </div>
      );
    case 'html':
      return (
        <textarea
          className="mono be-html"
          rows={Math.min(12, Math.max(3, b.html.split('\n').length))}
          value={b.html}
          aria-label="HTML of the block"
          onChange={(e) => set({ html: e.target.value }, `${b.id}:html`)}
        />
      );
    case 'footer':
      return (
        <div className="be-footer" style={{ textAlign: b.style?.align ?? 'center' }}>
          {b.text && <p>{b.text}</p>}
          <p className="muted">Your account name · your postal address · Unsubscribe</p>
        </div>
      );
  }
}

function Column({
  parent,
  column,
  blocks,
  frame,
}: {
  parent: string;
  column: number;
  blocks: Block[];
  frame: FrameProps;
}) {
  const { setNodeRef, isOver } = useDroppable({
    id: `col:${parent}:${column}`,
    data: { kind: 'column', place: { parent, column }, index: blocks.length } satisfies DropData,
  });
  return (
    <div ref={setNodeRef} className={`be-column${isOver ? ' over' : ''}`} data-column={column}>
      {blocks.map((b, i) => (
        <BlockFrame key={b.id} {...frame} block={b} index={i} place={{ parent, column }} />
      ))}
      {blocks.length === 0 && <p className="be-empty small-text">Drop a block here</p>}
    </div>
  );
}
