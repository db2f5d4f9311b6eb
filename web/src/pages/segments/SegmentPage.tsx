// One segment (/app/segments/:id): its rules in the builder with the live count, saved with PUT, and
// Delete after a confirmation. Members who cannot edit see the rules and the count without the buttons.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, type Audience } from '../../api.ts';
import { Alert, formatDate, Loading, plural } from '../../ui.tsx';
import { SegmentBuilder } from './SegmentBuilder.tsx';
import type { WireFilter } from './rules.ts';

export interface Segment {
  id: string;
  name: string;
  filter: WireFilter;
  subscriber_count: number;
  created_at: string;
  updated_at: string;
}

export function SegmentPage({ id, canEdit }: { id: string; canEdit: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = `/segments/${encodeURIComponent(id)}`;
  const segment = useQuery({ queryKey: ['segments', 'one', id], queryFn: () => api.get<Segment>(path) });
  const audience = useQuery({ queryKey: ['audience'], queryFn: () => api.get<Audience>('/audience') });
  const [error, setError] = useState<unknown>();
  const s = segment.data;
  const remove = async () => {
    if (!s || !confirm(`Delete the segment “${s.name}”? Subscribers are not affected.`)) return;
    try {
      await api.del(path);
      await client.invalidateQueries({ queryKey: ['segments'] });
      navigate('/app/segments');
    } catch (err) {
      setError(err);
    }
  };
  const save = async (draft: { name: string; filter?: WireFilter }) => {
    const saved = await api.put<Segment>(path, draft);
    client.setQueryData(['segments', 'one', id], saved);
    // campaigns' audience pickers and the list show segments too
    await client.invalidateQueries({ queryKey: ['segments'], predicate: (q) => q.queryKey[1] !== 'one' });
  };
  return (
    <section>
      <p>
        <Link to="/app/segments">← Segments</Link>
      </p>
      <Alert error={segment.error ?? audience.error ?? error} />
      {!s || !audience.data ? (
        !segment.error && !audience.error && <Loading />
      ) : (
        <>
          <div className="title-row">
            <h1>{s.name}</h1>
            {canEdit && (
              <button type="button" className="danger-outline small" onClick={remove}>
                Delete segment
              </button>
            )}
          </div>
          <p className="muted">
            {plural(s.subscriber_count, 'subscriber')} as saved · created {formatDate(s.created_at)} · last changed{' '}
            {formatDate(s.updated_at)}
          </p>
          {canEdit ? (
            <SegmentBuilder
              audience={audience.data}
              initial={s}
              title="Edit segment"
              submitLabel="Save changes"
              onSave={save}
            />
          ) : (
            <pre className="filter-json">{JSON.stringify(s.filter, null, 2)}</pre>
          )}
        </>
      )}
    </section>
  );
}
