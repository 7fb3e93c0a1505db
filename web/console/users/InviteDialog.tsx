import { Alert, Button, CopyButton, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import type { z } from 'zod';
import { inviteUserBody, type invitedUserView, type passwordResetView } from '../../../src/modules/auth/auth.schemas';
import { roles as ROLE_LABELS } from '../../lib/labels';
import { api } from '../app/api';
import { formatDateTime } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { USER_PROBLEMS, USERS } from './users';

type Invited = z.output<typeof invitedUserView>;

const ROLE_OPTIONS = Object.entries(ROLE_LABELS).map(([value, label]) => ({ value, label }));

/** A one-time link to hand over: shown once, copied with one click, with when it stops working. */
export function LinkToHandOver({ link }: { link: z.output<typeof passwordResetView> }) {
  return (
    <Stack gap="xs">
      <Text size="sm">Entréguelo a la persona por un medio seguro: sirve una sola vez, hasta el {formatDateTime(link.expiresAt)}. No se vuelve a mostrar.</Text>
      <Group gap="xs" wrap="nowrap" align="flex-end">
        <TextInput label="Enlace" value={link.url} readOnly style={{ flex: 1 }} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton value={link.url}>{({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copiado' : 'Copiar'}</Button>}</CopyButton>
      </Group>
    </Stack>
  );
}

/** Invite someone: the account exists at once with its role; its owner sets the password from the link the answer carries. */
export function InviteDialog({ opened, onClose, onInvited }: { opened: boolean; onClose: () => void; onInvited: (invited: Invited) => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(
    inviteUserBody,
    { initialValues: { email: '', name: '', role: 'volunteer' as Invited['user']['role'] } },
    USER_PROBLEMS,
  );
  const close = () => {
    form.reset();
    onClose();
  };
  const onSubmit = submit(async (values) => {
    const invited = await api.post<Invited>(USERS, values);
    onInvited(invited);
    close();
  });
  return (
    <Modal opened={opened} onClose={close} title="Invitar a alguien" size="lg" closeButtonProps={{ 'aria-label': 'Cerrar' }}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <TextInput label="Nombre" required data-autofocus autoComplete="off" {...form.getInputProps('name')} />
          <TextInput label="Correo" type="email" required autoComplete="off" {...form.getInputProps('email')} />
          <Select label="Rol" required allowDeselect={false} data={ROLE_OPTIONS} {...form.getInputProps('role')} />
          <Text size="sm" c="dimmed">
            La cuenta queda creada con este rol. Al invitar verá un enlace de un solo uso para que la persona elija su contraseña; nadie más la conoce.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancelar
            </Button>
            <Button type="submit" loading={submitting}>
              Invitar
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
