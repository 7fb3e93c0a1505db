import { Select, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { Role } from '../../../src/kernel/auth/roles';
import { roles as ROLE_LABELS } from '../../lib/labels';
import { api } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import type { User } from './UsersPage';
import { userProblems, USERS } from './users';

const ROLE_OPTIONS = Object.entries(ROLE_LABELS).map(([value, label]) => ({ value, label }));

/** A new role for one account: it takes effect at once, and the person signs in again with it. */
export function RoleDialog({ user, onClose, onChanged }: { user: User; onClose: () => void; onChanged: () => Promise<void> }) {
  const [role, setRole] = useState<Role>(user.role);
  return (
    <ConfirmDialog
      opened
      onClose={onClose}
      title={`Rol de ${user.name}`}
      confirmLabel="Cambiar el rol"
      confirmDisabled={role === user.role}
      describeError={userProblems}
      onConfirm={async () => {
        await api.patch(`${USERS}/${user.id}`, { role });
        notifications.show({ color: 'green', message: `${user.name} ahora tiene el rol ${ROLE_LABELS[role]}.` });
        await onChanged();
      }}
    >
      <Select label="Rol" allowDeselect={false} data={ROLE_OPTIONS} value={role} onChange={(value) => value && setRole(value as Role)} data-autofocus />
      <Text size="sm" c="dimmed">
        Cambia lo que puede ver y hacer. Sus sesiones se cierran y vuelve a ingresar con el rol nuevo.
      </Text>
    </ConfirmDialog>
  );
}
