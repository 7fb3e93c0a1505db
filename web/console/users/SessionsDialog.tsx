import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { z } from 'zod';
import type { sessionView } from '../../../src/modules/auth/auth.schemas';
import { api } from '../app/api';
import { formatDateTime } from '../app/format';
import { ServerTable, invalidateServerLists, type Column } from '../app/ServerTable';
import { RelativeTime } from '../app/Time';
import { USERS, userProblems } from './users';

type Session = z.output<typeof sessionView>;

const BROWSERS: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\//, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\//, 'Firefox'],
  [/Chrome\//, 'Chrome'],
  [/Version\/[\d.]+.*Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Chrome en Android" from a User-Agent (the whole text goes in a title); what it cannot name, said plainly. */
export function deviceName(userAgent: string | null): string {
  if (!userAgent) return 'Dispositivo sin nombre';
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} en ${system}`;
  return browser ?? system ?? userAgent.slice(0, 40);
}

/**
 * The devices where a user is signed in: browser and system, address, when it started and was last
 * seen; each can be ended alone (a lost phone) while the others stay, or all of them at once.
 */
export function SessionsDialog({ user, onClose, onEndAll }: { user: { id: string; name: string }; onClose: () => void; onEndAll: () => void }) {
  const path = `${USERS}/${user.id}/sessions`;
  const [ending, setEnding] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const end = async (session: Session) => {
    setEnding(session.id);
    setError(null);
    try {
      await api.post(`${path}/${session.id}/end`, {});
      notifications.show({ color: 'green', message: `Se cerró la sesión de ${user.name} en ${deviceName(session.userAgent)}.` });
      await invalidateServerLists(path);
    } catch (failure) {
      setError(userProblems(failure));
    } finally {
      setEnding(null);
    }
  };
  const columns: Column<Session>[] = [
    {
      key: 'device',
      header: 'Dispositivo',
      render: (session) => (
        <Text size="sm" title={session.userAgent ?? undefined}>
          {deviceName(session.userAgent)}
        </Text>
      ),
    },
    { key: 'ip', header: 'Dirección IP', render: (session) => session.ip ?? '—' },
    {
      key: 'startedAt',
      header: 'Inició',
      render: (session) => (
        <time dateTime={session.startedAt} style={{ whiteSpace: 'nowrap' }}>
          {formatDateTime(session.startedAt)}
        </time>
      ),
    },
    { key: 'lastSeenAt', header: 'Última actividad', render: (session) => <RelativeTime value={session.lastSeenAt} /> },
    {
      key: 'end',
      header: 'Acciones',
      render: (session) => (
        <Button
          size="xs"
          variant="default"
          color="red"
          loading={ending === session.id}
          onClick={() => void end(session)}
          aria-label={`Cerrar la sesión en ${deviceName(session.userAgent)} iniciada el ${formatDateTime(session.startedAt)}`}
        >
          Cerrar
        </Button>
      ),
    },
  ];
  return (
    <Modal opened onClose={onClose} title={`Sesiones de ${user.name}`} size="xl" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <Stack>
        <Text size="sm">
          Cada dispositivo donde {user.name} ingresó y su sesión sigue abierta (hasta que vence, sale o se cierra aquí). Cerrar una sesión saca solo ese dispositivo; los demás
          siguen. Su contraseña no cambia.
        </Text>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <ServerTable<Session>
          caption={`Sesiones abiertas de ${user.name}`}
          path={path}
          columns={columns}
          rowKey={(session) => session.id}
          pageSizes={[10, 25, 50]}
          describeError={userProblems}
          empty="No tiene sesiones abiertas."
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Listo
          </Button>
          <Button color="red" onClick={onEndAll}>
            Cerrar todas las sesiones
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
