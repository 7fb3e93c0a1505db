import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { loginBody, type setupView } from '../../../src/modules/auth/auth.schemas';
import { useSchemaForm } from './forms';
import { api, ApiError } from './api';
import { FirstAccountForm } from './FirstAccountForm';
import { PageLoader } from './PageLoader';
import { useSession } from './session';

/**
 * The sign-in page: its own chunk, so that the zod schemas it validates with load only when someone
 * signs in. On a fresh install (no account yet) it offers to create the first one, the admin.
 */
export default function LoginPage() {
  const setup = useQuery({ queryKey: ['auth', 'setup'], queryFn: () => api.get<z.output<typeof setupView>>('/api/auth/setup'), staleTime: 0 });
  return (
    <Center component="main" mih="100vh" p="md" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" radius="md" w={380} maw="100%">
        <Stack>
          <div>
            <Title order={1} size="h2">
              Comando
            </Title>
            <Text c="dimmed" size="sm">
              Consola del equipo de campaña
            </Text>
          </div>
          {setup.isPending ? <PageLoader /> : setup.data?.firstAccountPending ? <FirstAccountForm /> : <SignInForm />}
        </Stack>
      </Paper>
    </Center>
  );
}

function SignInForm() {
  const { login, endedBecause } = useSession();
  const { form, submit, submitting, formError, setFormError } = useSchemaForm(loginBody, { initialValues: { email: '', password: '' } });

  const onSubmit = submit(async (values) => {
    try {
      await login(values.email, values.password);
    } catch (error) {
      // A wrong password is the form's message, not a field's: it must not say which of the two was wrong.
      if (error instanceof ApiError && error.status === 401) return setFormError('Correo o contraseña incorrectos.');
      throw error;
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        {endedBecause && !formError && <Alert color="yellow">{endedBecause}</Alert>}
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <TextInput label="Correo" type="email" autoComplete="username" required {...form.getInputProps('email')} />
        <PasswordInput label="Contraseña" autoComplete="current-password" required {...form.getInputProps('password')} />
        <Button type="submit" loading={submitting}>
          Entrar
        </Button>
      </Stack>
    </form>
  );
}
