import { Avatar, Group, Menu, Modal, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense } from 'react';
import { useSession, useSignedIn } from './session';
import { PageLoader } from './PageLoader';

const ChangePasswordForm = lazy(() => import('./ChangePasswordForm'));
import { roles as ROLE_LABELS } from '../../lib/labels';

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase() ?? '')
    .join('');
}

/** The signed-in person, their role, and what they can do with their account. */
export function AccountMenu() {
  const session = useSignedIn();
  const { logout } = useSession();
  const [passwordOpen, password] = useDisclosure(false);
  const { user } = session;
  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <UnstyledButton>
            <VisuallyHidden>Cuenta de </VisuallyHidden>
            <Group gap="xs" wrap="nowrap">
              <Avatar color="blue" radius="xl" size="sm" aria-hidden>
                {initials(user.name)}
              </Avatar>
              <div className="account-name">
                <Text size="sm" fw={500} lh={1.2}>
                  {user.name}
                </Text>
                <Text size="xs" c="dimmed" lh={1.2}>
                  {ROLE_LABELS[user.role]}
                </Text>
              </div>
            </Group>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{user.email}</Menu.Label>
          <Menu.Item onClick={password.open}>Cambiar contraseña</Menu.Item>
          <Menu.Divider />
          <Menu.Item onClick={() => void logout()}>Cerrar sesión</Menu.Item>
          <Menu.Item color="red" onClick={() => void logout(true)}>
            Cerrar sesión en todos los dispositivos
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <Modal opened={passwordOpen} onClose={password.close} title="Cambiar contraseña">
        {passwordOpen && (
          <Suspense fallback={<PageLoader />}>
            <ChangePasswordForm onDone={password.close} />
          </Suspense>
        )}
      </Modal>
    </>
  );
}
