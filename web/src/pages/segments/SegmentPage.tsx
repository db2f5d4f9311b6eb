// One segment (/app/segments/:id): its rules in the builder with the live count, saved with PUT, and
// Delete after a confirmation. Members who cannot edit see the rules and the count without the buttons.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { audienceKeys, getAudience } from '../../api/audience.ts';
import { deleteSegment, getSegment, segmentKeys, updateSegment } from '../../api/segments.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { Alert, formatDate, Loading, plural } from '../../ui.tsx';
import { SegmentBuilder } from './SegmentBuilder.tsx';
import type { WireFilter } from './rules.ts';
import { PageHeader } from '../../lib/PageHeader.tsx';

export function SegmentPage({ id, canEdit }: { id: string; canEdit: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const segment = useQuery({ queryKey: segmentKeys.one(id), queryFn: () => getSegment(id) });
  const audience = useQuery({ queryKey: audienceKeys.all, queryFn: getAudience });
  const s = segment.data;
  const save = async (draft: { name: string; filter?: WireFilter }) => {
    const saved = await updateSegment(id, draft);
    client.setQueryData(segmentKeys.one(id), saved);
    // campaigns' audience pickers and the list show segments too
    await client.invalidateQueries({ queryKey: segmentKeys.all, predicate: (q) => q.queryKey[1] !== 'one' });
  };
  return (
    <section>
      <p>
        <Link to="/app/segments">← Segments</Link>
      </p>
      <Alert error={segment.error ?? audience.error} />
      {!s || !audience.data ? (
        !segment.error && !audience.error && <Loading />
      ) : (
        <>
          <PageHeader title={s.name}>
            {canEdit && (
              <ConfirmButton
                label="Delete segment"
                name={`Delete the segment ${s.name}`}
                question={`Delete the segment “${s.name}”? Subscribers are not affected.`}
                onConfirm={async () => {
                  await deleteSegment(id);
                  await client.invalidateQueries({ queryKey: segmentKeys.all });
                  navigate('/app/segments');
                }}
              />
            )}
          </PageHeader>
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
