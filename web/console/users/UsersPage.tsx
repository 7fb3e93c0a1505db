import { Alert, Badge, Button, Group, Menu, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { z } from 'zod';
import type { Role } from '../../../src/kernel/auth/roles';
import type { passwordResetView, setupView, userView } from '../../../src/modules/auth/auth.schemas';
import { roles as ROLE_LABELS } from '../../lib/labels';
import { api } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { useUrlFilters, queryString } from '../app/filters';
import { formatDate, formatDateTime, formatRelative } from '../app/format';
import { PageTitle } from '../app/pages';
import { SearchForm } from '../app/SearchForm';
import { ServerTable, invalidateServerLists, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { InviteDialog, LinkToHandOver } from './InviteDialog';
import { RoleDialog } from './RoleDialog';
import { SessionsDialog } from './SessionsDialog';
import { USERS, userProblems } from './users';

export type User = z.output<typeof userView>;
type Link = z.output<typeof passwordResetView>;

const ROLE_OPTIONS = Object.entries(ROLE_LABELS).map(([value, label]) => ({ value, label }));
const STATE_OPTIONS = [
  { value: 'true', label: 'Activas' },
  { value: 'false', label: 'Desactivadas o por aprobar' },
];

/** What a row's action menu opened: one dialog at a time, for one user. */
type Acting = { kind: 'role' | 'link' | 'sessions' | 'devices' | 'active'; user: User } | null;

/** How people get an account here: invited by an admin, or asking for one when self-registration is on. */
function RegistrationNote() {
  const setup = useQuery({ queryKey: ['auth', 'setup'], queryFn: () => api.get<z.output<typeof setupView>>('/api/auth/setup'), staleTime: 60_000 });
  if (!setup.data) return null;
  return setup.data.selfRegistration ? (
    <Alert color="yellow" title="Registro abierto" mb="md">
      Cualquiera puede pedir una cuenta desde la página de ingreso: queda como voluntariado desactivado hasta que usted la active (filtre por «Desactivadas o por aprobar»). Se
      cierra quitando <code>SELF_REGISTRATION</code> de la configuración del servidor.
    </Alert>
  ) : (
    <Text size="sm" c="dimmed" mb="md">
      Solo la administración crea cuentas: invite a cada persona y entréguele el enlace para que elija su contraseña. (El registro abierto se activa con{' '}
      <code>SELF_REGISTRATION</code> en la configuración del servidor.)
    </Text>
  );
}

/** `/usuarios`: the accounts, their roles and state; invite, change a role, (de)activate, hand a set-password link, end sessions. */
export default function UsersPage() {
  const { user: me } = useSignedIn();
  const filters = useUrlFilters(['q', 'rol', 'estado'] as const);
  const { q, rol, estado } = filters.values;
  const [inviting, setInviting] = useState(false);
  const [acting, setActing] = useState<Acting>(null);
  const [issued, setIssued] = useState<{ user: User; link: Link } | null>(null);
  const done = () => {
    setActing(null);
    return invalidateServerLists(USERS);
  };

  const columns: Column<User>[] = [
    {
      key: 'name',
      header: 'Persona',
      render: (user) => (
        <Stack gap={0}>
          <Text fw={500}>
            {user.name}
            {user.id === me.id ? ' (usted)' : ''}
          </Text>
          <Text size="sm" c="dimmed">
            {user.email}
          </Text>
        </Stack>
      ),
    },
    { key: 'role', header: 'Rol', render: (user) => ROLE_LABELS[user.role] },
    {
      key: 'active',
      header: 'Estado',
      render: (user) => (
        <Badge color={user.active ? 'green' : 'gray'} variant="dot" tt="none">
          {user.active ? 'Activa' : 'Desactivada'}
        </Badge>
      ),
    },
    {
      key: 'lastLoginAt',
      header: 'Último ingreso',
      render: (user) =>
        user.lastLoginAt ? (
          <time dateTime={user.lastLoginAt} title={formatDateTime(user.lastLoginAt)}>
            {formatRelative(user.lastLoginAt)}
          </time>
        ) : (
          'Nunca'
        ),
    },
    {
      key: 'createdAt',
      header: 'Creada',
      render: (user) => (
        <time dateTime={user.createdAt} title={formatDateTime(user.createdAt)} style={{ whiteSpace: 'nowrap' }}>
          {formatDate(user.createdAt)}
        </time>
      ),
    },
    {
      key: 'actions',
      header: 'Acciones',
      render: (user) => (
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button size="xs" variant="default" aria-label={`Acciones para ${user.name}`}>
              Acciones
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => setActing({ kind: 'role', user })}>Cambiar rol</Menu.Item>
            <Menu.Item onClick={() => setActing({ kind: 'link', user })} disabled={!user.active}>
              Enlace para elegir contraseña
            </Menu.Item>
            <Menu.Item onClick={() => setActing({ kind: 'devices', user })}>Ver sus sesiones</Menu.Item>
            <Menu.Item onClick={() => setActing({ kind: 'sessions', user })}>Cerrar sus sesiones</Menu.Item>
            <Menu.Divider />
            <Menu.Item color={user.active ? 'red' : undefined} onClick={() => setActing({ kind: 'active', user })}>
              {user.active ? 'Desactivar la cuenta' : 'Activar la cuenta'}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      ),
    },
  ];

  const target = acting?.user;
  return (
    <>
      <PageTitle actions={<Button onClick={() => setInviting(true)}>Invitar a alguien</Button>}>Usuarios</PageTitle>
      <RegistrationNote />
      {issued && (
        <Alert color="green" mb="md" withCloseButton closeButtonLabel="Ocultar el enlace" onClose={() => setIssued(null)} title={`Enlace para ${issued.user.name}`}>
          <LinkToHandOver link={issued.link} />
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md">
        <SearchForm name="Buscar usuarios" placeholder="Nombre o correo" value={q ?? ''} onSearch={(value) => filters.set({ q: value })} />
        <Select
          label="Rol"
          placeholder="Todos"
          clearable
          clearButtonProps={{ 'aria-label': 'Quitar el filtro de rol' }}
          data={ROLE_OPTIONS}
          value={rol ?? null}
          onChange={(value) => filters.set({ rol: value })}
        />
        <Select
          label="Estado"
          placeholder="Todas"
          clearable
          clearButtonProps={{ 'aria-label': 'Quitar el filtro de estado' }}
          data={STATE_OPTIONS}
          value={estado ?? null}
          onChange={(value) => filters.set({ estado: value })}
        />
      </SimpleGrid>
      {filters.active.length > 0 && (
        <Group justify="flex-end" mb="xs">
          <Button variant="subtle" onClick={filters.clear}>
            Quitar filtros
          </Button>
        </Group>
      )}
      <ServerTable<User>
        caption="Cuentas de usuario"
        path={`${USERS}${queryString({ q, role: rol, active: estado })}`}
        columns={columns}
        rowKey={(user) => user.id}
        empty={filters.active.length ? 'Ninguna cuenta coincide con los filtros.' : 'Aún no hay cuentas.'}
      />

      <InviteDialog
        opened={inviting}
        onClose={() => setInviting(false)}
        onInvited={(invited) => {
          setIssued({ user: invited.user, link: invited.setPasswordLink });
          void invalidateServerLists(USERS);
        }}
      />
      {target && acting?.kind === 'role' && <RoleDialog user={target} onClose={() => setActing(null)} onChanged={done} />}
      {target && acting?.kind === 'devices' && <SessionsDialog user={target} onClose={() => setActing(null)} onEndAll={() => setActing({ kind: 'sessions', user: target })} />}
      <ConfirmDialog
        opened={acting?.kind === 'link'}
        onClose={() => setActing(null)}
        title="Enlace para elegir contraseña"
        confirmLabel="Crear el enlace"
        describeError={(error) => userProblems(error)}
        onConfirm={async () => {
          const link = await api.post<Link>(`${USERS}/${target!.id}/password-reset`, {});
          setIssued({ user: target!, link });
        }}
      >
        <Text>
          Un enlace de un solo uso con el que {target?.name} elige una contraseña nueva. Entrégueselo usted (Comando no lo envía). Su contraseña actual sirve hasta que lo use; un
          enlace nuevo reemplaza al anterior.
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={acting?.kind === 'sessions'}
        onClose={() => setActing(null)}
        title="Cerrar sus sesiones"
        confirmLabel="Cerrar las sesiones"
        describeError={(error) => userProblems(error)}
        onConfirm={async () => {
          await api.post(`${USERS}/${target!.id}/sessions/end`, {});
          notifications.show({ color: 'green', message: `Se cerraron todas las sesiones de ${target!.name}.` });
          await invalidateServerLists(`${USERS}/${target!.id}/sessions`);
          await done();
        }}
      >
        <Text>
          {target?.name} sale de la consola, la sala de situación y la app de brigada en todos sus dispositivos (un celular perdido, un computador compartido). Su contraseña no
          cambia.
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={acting?.kind === 'active'}
        onClose={() => setActing(null)}
        title={target?.active ? 'Desactivar la cuenta' : 'Activar la cuenta'}
        confirmLabel={target?.active ? 'Desactivar' : 'Activar'}
        danger={target?.active}
        describeError={(error) => userProblems(error)}
        onConfirm={async () => {
          await api.patch(`${USERS}/${target!.id}`, { active: !target!.active });
          notifications.show({ color: 'green', message: target!.active ? `${target!.name} ya no puede ingresar.` : `${target!.name} ya puede ingresar.` });
          await done();
        }}
      >
        <Text>
          {target?.active
            ? `${target?.name} no podrá ingresar y sus sesiones se cierran ya. Lo que hizo queda registrado a su nombre. Puede activarla de nuevo cuando quiera.`
            : `${target?.name} podrá ingresar con su contraseña, con el rol ${target ? ROLE_LABELS[target.role as Role] : ''}.`}
        </Text>
      </ConfirmDialog>
    </>
  );
}
