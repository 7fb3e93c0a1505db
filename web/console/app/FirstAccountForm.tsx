import { Alert, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import type { z } from 'zod';
import { registerBody, type registerResponse } from '../../../src/modules/auth/auth.schemas';
import { api } from './api';
import { useSchemaForm } from './forms';
import { useSession } from './session';

/** Someone else created the first account meanwhile: after it, only an admin creates accounts. */
const FIRST_ACCOUNT_PROBLEMS = {
  registration_closed: 'Otra persona acaba de crear la primera cuenta de este Comando. Pídale que le cree la suya; luego inicie sesión.',
};

/**
 * A fresh install has no account: the first one registered becomes the admin (the API's rule), so
 * the sign-in page offers to create it instead of a sign-in nobody can pass.
 */
export function FirstAccountForm() {
  const { login } = useSession();
  const { form, submit, submitting, formError } = useSchemaForm(registerBody, { initialValues: { name: '', email: '', password: '' } }, FIRST_ACCOUNT_PROBLEMS);
  const onSubmit = submit(async (values) => {
    await api.post<z.output<typeof registerResponse>>('/api/auth/register', { name: values.name, email: values.email, password: values.password });
    await login(values.email, values.password);
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        <Text size="sm">Este Comando aún no tiene cuentas. La primera que cree será la de administración: con ella podrá invitar al resto del equipo.</Text>
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <TextInput label="Su nombre" autoComplete="name" required {...form.getInputProps('name')} />
        <TextInput label="Correo" type="email" autoComplete="username" required {...form.getInputProps('email')} />
        <PasswordInput
          label="Contraseña"
          description="Al menos 10 caracteres; una frase larga es mejor."
          autoComplete="new-password"
          required
          {...form.getInputProps('password')}
        />
        <Button type="submit" loading={submitting}>
          Crear la cuenta de administración
        </Button>
      </Stack>
    </form>
  );
}
