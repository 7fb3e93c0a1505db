import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './console.css';
import { MantineProvider, Notification, createTheme } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, Suspense, lazy, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { rolePermitted } from '../../src/kernel/auth/roles';
import { queryClient } from './app/api';
import { LiveProvider } from './app/live';
import { CONSOLE_ENTRIES, type ConsoleEntry } from './app/modules';
import { ForbiddenPage, HomeLinks, NotFoundPage, ScreenError } from './app/pages';
import { PageLoader } from './app/PageLoader';
import { SessionProvider, useSession } from './app/session';
import { Shell } from './app/Shell';

const theme = createTheme({
  primaryColor: 'blue',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  // Body text and controls keep WCAG AA contrast on white (axe checks every screen).
  primaryShade: 8,
  components: {
    // A toast's close button is an icon: it needs a name for screen readers (axe: button-name).
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Cerrar aviso' } } }),
  },
});

/** A module's screen, loaded on first visit, behind its policy's roles. */
function guarded(entry: ConsoleEntry & { page: NonNullable<ConsoleEntry['page']> }): ComponentType {
  const Page = lazy(entry.page);
  return function GuardedScreen() {
    const { role } = useSession();
    if (!role || !rolePermitted(role, entry.roles)) return entry.path === '/' ? <HomeLinks /> : <ForbiddenPage />;
    return <Page />;
  };
}

const screens: RouteObject[] = CONSOLE_ENTRIES.flatMap((entry) =>
  entry.page && !entry.external
    ? [entry.path === '/' ? { index: true, Component: guarded({ ...entry, page: entry.page }) } : { path: `${entry.path}/*`, Component: guarded({ ...entry, page: entry.page }) }]
    : [],
);

const LoginPage = lazy(() => import('./app/LoginPage'));

function SignedIn() {
  const { session } = useSession();
  return session ? (
    <Shell />
  ) : (
    <Suspense fallback={<PageLoader />}>
      <LoginPage />
    </Suspense>
  );
}

const router = createBrowserRouter([{ path: '/', Component: SignedIn, ErrorBoundary: ScreenError, children: [...screens, { path: '*', Component: NotFoundPage }] }]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <LiveProvider>
            <RouterProvider router={router} />
          </LiveProvider>
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
