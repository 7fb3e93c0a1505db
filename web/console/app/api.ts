import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../../lib/api';
import { WEB_APPS } from '../../lib/apps';
import { WebSession } from '../../lib/session';

/**
 * The console's session (the web apps' shared sign-in): kept in sessionStorage (a shared office
 * computer forgets it with the tab), ended when its token runs out. `useSession` (session.tsx) is its React face.
 */
export const webSession = new WebSession(WEB_APPS.console, sessionStorage, 'comando.console', { endAtExpiry: true });

/** The console's one API client, sending the session's token. */
export const api = webSession.api;

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
