import { Anchor, AppShell, Badge, Burger, Group, NavLink, ScrollArea, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { AccountMenu } from './AccountMenu';
import { useLiveState } from './live';
import { entriesFor, type ConsoleEntry } from './modules';
import { useSignedIn } from './session';
import { PageLoader } from './PageLoader';

const LIVE_LABELS = { off: 'Sin conexión en vivo', connecting: 'Conectando…', live: 'En vivo', reconnecting: 'Reconectando…' } as const;
const LIVE_COLOURS = { off: 'gray', connecting: 'yellow', live: 'green', reconnecting: 'orange' } as const;

function LiveBadge() {
  const state = useLiveState();
  return (
    <Badge variant="dot" color={LIVE_COLOURS[state]} role="status" aria-live="polite" className="live-badge">
      {LIVE_LABELS[state]}
    </Badge>
  );
}

const within = (entry: ConsoleEntry, path: string) => (entry.path === '/' ? path === '/' : path === entry.path || path.startsWith(`${entry.path}/`));

/** The entry whose screen is open: the most specific one the path is within (`/whatsapp/campanas`, not `/whatsapp`). */
function isCurrent(entry: ConsoleEntry, path: string, entries: readonly ConsoleEntry[]): boolean {
  return within(entry, path) && !entries.some((other) => other.path.length > entry.path.length && within(other, path));
}

/** The console's frame: the modules the role may use, the account, the live connection, and the open screen. */
export function Shell() {
  const { user } = useSignedIn();
  const [navOpen, nav] = useDisclosure(false);
  const location = useLocation();
  const entries = entriesFor(user.role);
  const groups = [...new Set(entries.map((entry) => entry.group))];
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 250, breakpoint: 'sm', collapsed: { mobile: !navOpen } }} padding="md">
      <a href="#contenido" className="skip-link">
        Saltar al contenido
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={navOpen} onClick={nav.toggle} hiddenFrom="sm" size="sm" aria-label={navOpen ? 'Cerrar el menú' : 'Abrir el menú'} />
            <Anchor component={Link} to="/" underline="never" c="inherit">
              <Title order={2} size="h4">
                Comando
              </Title>
            </Anchor>
          </Group>
          <Group gap="md" wrap="nowrap">
            <LiveBadge />
            <AccountMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Módulos">
        <AppShell.Section grow component={ScrollArea}>
          <Stack gap="md">
            {groups.map((group) => (
              <div key={group}>
                <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" mb={4}>
                  {group}
                </Text>
                {entries
                  .filter((entry) => entry.group === group)
                  .map((entry) =>
                    entry.external ? (
                      <NavLink key={entry.path} href={entry.path} label={entry.label} description={entry.description} />
                    ) : (
                      <NavLink
                        key={entry.path}
                        component={Link}
                        to={entry.path}
                        label={entry.label}
                        active={isCurrent(entry, location.pathname, entries)}
                        aria-current={isCurrent(entry, location.pathname, entries) ? 'page' : undefined}
                        onClick={nav.close}
                      />
                    ),
                  )}
              </div>
            ))}
          </Stack>
        </AppShell.Section>
        <AppShell.Section>
          <NavLink href="/api/docs" label="Referencia de la API" target="_blank" rel="noopener" />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main id="contenido" tabIndex={-1}>
        <Suspense fallback={<PageLoader />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
