// The merge-tag picker: every field a subscriber has (first and last name, email, phone and the account's
// custom fields), inserted as Liquid with a fallback for subscribers who have none, so nobody reads
// "Hi , your teas are here". Used by the subject, the preview text and the editor's text blocks; small,
// so pages import it without loading the editor. A page adds tags of its own mail with ExtraMergeTags
// (a form's confirmation mail offers {{ confirm_url }}); every picker under it, the editor's too, lists them.
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, useId, useState } from 'react';
import { editorKeys, mergeTagLiquid, mergeTags, type MergeTag } from '../api/editor.ts';

/** Tags only the mail being edited has, listed first by every picker inside the provider. */
export const ExtraMergeTags = createContext<MergeTag[]>([]);

export function MergeTagPicker({
  onPick,
  target,
  compact = false,
}: {
  onPick: (liquid: string) => void;
  /** what the tag goes into, for the accessible names ("the subject") */
  target: string;
  compact?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [fallbacks, setFallbacks] = useState<Record<string, string>>({});
  const id = useId();
  const extra = useContext(ExtraMergeTags);
  const tags = useQuery({ queryKey: editorKeys.mergeTags, queryFn: mergeTags, staleTime: 60_000, enabled: open });
  return (
    <span className="merge-tags">
      <button
        type="button"
        className={compact ? 'be-tool' : 'small secondary'}
        aria-expanded={open}
        aria-controls={id}
        aria-label={`Insert a merge tag into ${target}`}
        title="Insert a merge tag"
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => setOpen((o) => !o)}
      >
        {compact ? '{ }' : 'Insert merge tag'}
      </button>
      {open && (
        <div className="merge-tag-menu" id={id} role="group" aria-label={`Merge tags for ${target}`}>
          {tags.isPending && <p className="muted">Loading fields…</p>}
          {tags.error && <p className="field-error">The fields could not be loaded.</p>}
          {[...extra, ...(tags.data ?? [])].map((t) => {
            const fallback = fallbacks[t.path] ?? t.fallback;
            return (
              <div className="merge-tag" key={t.path}>
                <button
                  type="button"
                  className="small"
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => {
                    onPick(mergeTagLiquid(t.path, fallback));
                    setOpen(false);
                  }}
                  aria-label={`Insert ${t.label} into ${target}`}
                >
                  {t.label}
                </button>
                {t.always ? (
                  <span className="muted">always set</span>
                ) : (
                  <label>
                    <span className="muted">if empty</span>
                    <input
                      value={fallback}
                      placeholder="(nothing)"
                      onChange={(e) => setFallbacks((f) => ({ ...f, [t.path]: e.target.value }))}
                      aria-label={`Fallback for ${t.label}`}
                    />
                  </label>
                )}
              </div>
            );
          })}
        </div>
      )}
    </span>
  );
}
