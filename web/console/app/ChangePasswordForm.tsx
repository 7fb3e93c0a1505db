import { Alert, Button, Group, PasswordInput, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { z } from 'zod';
import { changePasswordBody, type changePasswordResponse } from '../../../src/modules/auth/auth.schemas';
import { api, webSession } from './api';
import { useSchemaForm } from './forms';

export default function ChangePasswordForm({ onDone }: { onDone: () => void }) {
  const { form, submit, submitting, formError } = useSchemaForm(changePasswordBody, { initialValues: { currentPassword: '', newPassword: '' } });
  const onSubmit = submit(async (values) => {
    const answer = await api.post<z.output<typeof changePasswordResponse>>('/api/auth/password', values);
    // Every earlier token ended with the change: keep working with the new one.
    webSession.renew(answer.token, answer.expiresIn);
    notifications.show({ color: 'green', message: 'Contraseña cambiada. Las demás sesiones de su cuenta se cerraron.' });
    onDone();
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <PasswordInput label="Contraseña actual" autoComplete="current-password" required data-autofocus {...form.getInputProps('currentPassword')} />
        <PasswordInput
          label="Contraseña nueva"
          description="Al menos 10 caracteres; una frase larga es mejor."
          autoComplete="new-password"
          required
          {...form.getInputProps('newPassword')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancelar
          </Button>
          <Button type="submit" loading={submitting}>
            Cambiar
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
