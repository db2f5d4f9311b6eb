// The builder's live count: the draft filter is counted on the server by the compiler a saved segment
// uses (POST /app/api/segments/count), 400 ms after the last change, keeping the last number meanwhile.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { countDraft, segmentKeys } from '../../api/segments.ts';
import type { WireFilter } from './rules.ts';

const DEBOUNCE_MS = 400;

export function useDraftCount(filter: WireFilter | undefined) {
  const key = filter ? JSON.stringify(filter) : '';
  const [settled, setSettled] = useState(key);
  useEffect(() => {
    const t = setTimeout(() => setSettled(key), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [key]);
  return useQuery({
    queryKey: segmentKeys.draftCount(settled),
    queryFn: () => countDraft(JSON.parse(settled) as unknown),
    enabled: settled !== '',
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 5_000,
  });
}
