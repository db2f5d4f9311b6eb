// The subscribers list's bulk actions: what is selected (ids on the page, or everything the filter matches),
// the action and its group, and a confirmation that says how many subscribers it changes. The server does
// the work in one operation (POST /app/api/subscribers/bulk), never one request per row.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { everyGroup, groupKeys } from '../../api/groups.ts';
import { bulkApply, subscriberKeys } from '../../api/subscribers.ts';
import { Alert, plural } from '../../ui.tsx';

export interface Selection {
  ids: Set<string>;
  /** every subscriber the filter matches, on every page */
  all: boolean;
}

type Action = 'add_to_group' | 'remove_from_group' | 'unsubscribe' | 'delete';
const LABELS: Record<Action, string> = {
  add_to_group: 'Add to group',
  remove_from_group: 'Remove from group',
  unsubscribe: 'Unsubscribe',
  delete: 'Delete',
};

const count = (n: number) => plural(n, 'subscriber');

export function BulkBar({
  selection,
  onSelect,
  filter,
  pageIds,
  total,
}: {
  selection: Selection;
  onSelect: (s: Selection) => void;
  filter: { search: string; status: string; group_id: string; segment_id: string };
  pageIds: string[];
  total: number;
}) {
  const client = useQueryClient();
  const [action, setAction] = useState<Action>('add_to_group');
  const [groupId, setGroupId] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const groups = useQuery({
    queryKey: groupKeys.every,
    queryFn: everyGroup,
  });
  const n = selection.all ? total : selection.ids.size;
  if (n === 0 && !done) return null;
  const needsGroup = action === 'add_to_group' || action === 'remove_from_group';
  const group = groups.data?.groups.find((g) => g.id === groupId);
  const wholePage = !selection.all && pageIds.length > 0 && pageIds.every((id) => selection.ids.has(id));

  const describe = () => {
    const who = count(n);
    if (action === 'add_to_group') return `Add ${who} to “${group?.name}”?`;
    if (action === 'remove_from_group') return `Remove ${who} from “${group?.name}”?`;
    if (action === 'unsubscribe') return `Unsubscribe ${who}?`;
    return `Delete ${who}? This cannot be undone.`;
  };

  const apply = async () => {
    setError(undefined);
    const only = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== ''));
    try {
      const r = await bulkApply({
        action,
        ...(needsGroup && { group_id: groupId }),
        ...(selection.all ? { filter: only } : { ids: [...selection.ids] }),
      });
      setConfirming(false);
      setDone(`${LABELS[action]}: ${count(r.affected)} changed.`);
      onSelect({ ids: new Set(), all: false });
      await Promise.all([
        client.invalidateQueries({ queryKey: subscriberKeys.all }),
        client.invalidateQueries({ queryKey: groupKeys.all }),
      ]);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div className="card" aria-label="Bulk actions" role="region">
      {done && n === 0 ? (
        <p role="status">{done}</p>
      ) : (
        <>
          <p role="status">
            {selection.all ? `All ${count(total)} matching the filter are selected.` : `${count(n)} selected.`}{' '}
            {wholePage && total > n && (
              <button type="button" className="secondary small" onClick={() => onSelect({ ids: new Set(), all: true })}>
                Select all {count(total)} matching the filter
              </button>
            )}{' '}
            <button type="button" className="secondary small" onClick={() => onSelect({ ids: new Set(), all: false })}>
              Clear selection
            </button>
          </p>
          <div className="toolbar">
            <label>
              <select
                aria-label="Bulk action"
                value={action}
                onChange={(e) => (setAction(e.target.value as Action), setConfirming(false))}
              >
                {(Object.keys(LABELS) as Action[]).map((a) => (
                  <option key={a} value={a}>
                    {LABELS[a]}
                  </option>
                ))}
              </select>
            </label>
            {needsGroup && (
              <label>
                <select
                  aria-label="Group"
                  value={groupId}
                  onChange={(e) => (setGroupId(e.target.value), setConfirming(false))}
                >
                  <option value="">Choose a group</option>
                  {groups.data?.groups.map((g) => (
                    <option key={g.id} value={g.id}>
                      {g.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <button type="button" disabled={needsGroup && !group} onClick={() => setConfirming(true)}>
              Apply…
            </button>
          </div>
          {confirming && (
            <div role="alertdialog" aria-label="Confirm bulk action">
              <p>{describe()}</p>
              <Alert error={error} />
              <div className="buttons">
                <button type="button" className={action === 'delete' ? 'danger' : undefined} onClick={apply}>
                  Confirm
                </button>
                <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </>
      )}
    </div>
  );
}
