// Server state for every page: one QueryClient. A 4xx will not change by asking again, so only network
// failures and 5xx are retried; lists stay fresh for a few seconds so moving between pages does not flash.
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client.ts';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
    mutations: { retry: false },
  },
});
