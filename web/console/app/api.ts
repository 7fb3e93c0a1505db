import { QueryClient } from '@tanstack/react-query';
import { Api, ApiError } from '../../lib/api';

/** The console's one API client: the session lives in sessionStorage (a shared office computer forgets it with the tab). */
export const api = new Api(sessionStorage, 'comando.console');

/**
 * Server state for every screen. A 4xx is an answer, not a hiccup: only network failures and 5xx
 * are retried. Lists refetch when the window regains focus; live events invalidate what they touch.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status < 500),
    },
    mutations: { retry: false },
  },
});

export { ApiError };
