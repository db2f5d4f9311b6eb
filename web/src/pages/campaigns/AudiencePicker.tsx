// Who receives the campaign: any number of groups and segments, and the live count of the people they add
// up to (each person once, only active and not suppressed: the rule the send itself uses).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { audienceKeys, getAudience } from '../../api/audience.ts';
import { audienceCount, campaignKeys } from '../../api/campaigns.ts';
import { everySegment, segmentKeys } from '../../api/segments.ts';

export function useAudienceCount(groupIds: string[], segmentIds: string[]) {
  return useQuery({
    queryKey: campaignKeys.audienceCount(groupIds, segmentIds),
    queryFn: () => audienceCount(groupIds, segmentIds),
    placeholderData: keepPreviousData,
  });
}

export function AudiencePicker({
  groupIds,
  segmentIds,
  onChange,
  error,
  disabled,
}: {
  groupIds: string[];
  segmentIds: string[];
  onChange: (next: { group_ids: string[]; segment_ids: string[] }) => void;
  error?: string[];
  disabled?: boolean;
}) {
  const audience = useQuery({ queryKey: audienceKeys.all, queryFn: getAudience });
  const segments = useQuery({
    queryKey: segmentKeys.every,
    queryFn: everySegment,
  });
  const count = useAudienceCount(groupIds, segmentIds);
  const toggle = (list: string[], id: string, on: boolean) => (on ? [...list, id] : list.filter((x) => x !== id));
  const groups = audience.data?.groups ?? [];
  const segs = segments.data?.segments ?? [];
  const chosen = groupIds.length + segmentIds.length;
  return (
    <fieldset className="audience" aria-describedby={error ? 'audience-error' : 'audience-count'} disabled={disabled}>
      <legend>Audience</legend>
      <div className="audience-lists">
        <div>
          <h3>Groups</h3>
          {groups.length === 0 && <p className="muted">No groups yet.</p>}
          {groups.map((g) => (
            <label className="check" key={g.id}>
              <input
                type="checkbox"
                checked={groupIds.includes(g.id)}
                onChange={(e) =>
                  onChange({ group_ids: toggle(groupIds, g.id, e.target.checked), segment_ids: segmentIds })
                }
              />{' '}
              {g.name}
            </label>
          ))}
        </div>
        <div>
          <h3>Segments</h3>
          {segs.length === 0 && <p className="muted">No segments yet.</p>}
          {segs.map((s) => (
            <label className="check" key={s.id}>
              <input
                type="checkbox"
                checked={segmentIds.includes(s.id)}
                onChange={(e) =>
                  onChange({ group_ids: groupIds, segment_ids: toggle(segmentIds, s.id, e.target.checked) })
                }
              />{' '}
              {s.name}
            </label>
          ))}
        </div>
      </div>
      <p id="audience-count" className="audience-count" aria-live="polite">
        {chosen === 0
          ? 'Choose at least one group or segment.'
          : count.data
            ? `${count.data.count.toLocaleString()} ${count.data.count === 1 ? 'person' : 'people'} will receive it (each once; unsubscribed, bounced and suppressed addresses left out).`
            : count.error
              ? 'The count could not be worked out just now.'
              : 'Counting…'}
      </p>
      {error && (
        <p className="field-error" id="audience-error">
          {error[0]}
        </p>
      )}
    </fieldset>
  );
}
