// The subscribers list's group and segment filters (selects inside the list's search form) and the
// "go to page" box under the table.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { everySegment, segmentKeys } from '../../api/segments.ts';
import { useGroups } from './model.ts';

export function AudienceFilters({ groupId, segmentId }: { groupId: string; segmentId: string }) {
  const groups = useGroups();
  const segments = useQuery({
    queryKey: segmentKeys.every,
    queryFn: everySegment,
  });
  return (
    <>
      <label>
        <span className="visually-hidden">Filter by group</span>
        <select name="group_id" defaultValue={groupId} key={`g${groups.data ? 1 : 0}`}>
          <option value="">All groups</option>
          {groups.data?.groups.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span className="visually-hidden">Filter by segment</span>
        <select name="segment_id" defaultValue={segmentId} key={`s${segments.data ? 1 : 0}`}>
          <option value="">All segments</option>
          {segments.data?.segments.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

export function PageJump({ page, lastPage, onPage }: { page: number; lastPage: number; onPage: (p: number) => void }) {
  const [value, setValue] = useState(String(page));
  const n = Number(value);
  const valid = Number.isInteger(n) && n >= 1 && n <= lastPage;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid) onPage(n);
  };
  return (
    <form className="page-jump" onSubmit={submit} aria-label="Jump to a page">
      <label htmlFor="page-jump">Go to page</label>
      <input
        id="page-jump"
        type="number"
        min={1}
        max={lastPage}
        value={value}
        aria-invalid={!valid || undefined}
        onChange={(e) => setValue(e.target.value)}
      />
      <span className="muted">of {lastPage}</span>
      <button type="submit" className="secondary" disabled={!valid}>
        Go
      </button>
    </form>
  );
}
