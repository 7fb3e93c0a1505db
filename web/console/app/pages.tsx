import { Alert, Anchor, Button, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { entriesFor } from './modules';
import { useSignedIn } from './session';
import { problemMessage } from './problems';

/** A screen's title, also the document's, so a tab and a screen reader say where one is. */
export function PageTitle({ children, actions }: { children: string; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${children} · Comando`;
  }, [children]);
  return (
    <Stack gap={4} mb="md">
      <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: 12, flexWrap: 'wrap' }}>
        <Title order={1} size="h2">
          {children}
        </Title>
        {actions}
      </div>
    </Stack>
  );
}

/** Home for a role without the dashboard (brigades, volunteers): where its work is. */
export function HomeLinks() {
  const { user } = useSignedIn();
  const entries = entriesFor(user.role).filter((entry) => entry.path !== '/');
  return (
    <>
      <PageTitle>{`Hola, ${user.name}`}</PageTitle>
      {entries.length === 0 ? (
        <Text>Su cuenta aún no tiene módulos asignados. Pida a la administración de la campaña el rol que necesita.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {entries.map((entry) => (
            <Card key={entry.path} withBorder>
              <Anchor href={entry.path} fw={600}>
                {entry.label}
              </Anchor>
              <Text size="sm" c="dimmed">
                {entry.description}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      )}
    </>
  );
}

export function NotFoundPage() {
  return (
    <>
      <PageTitle>Página no encontrada</PageTitle>
      <Text mb="md">Esta dirección no corresponde a ninguna pantalla de la consola.</Text>
      <Button component={Link} to="/">
        Ir al inicio
      </Button>
    </>
  );
}

export function ForbiddenPage() {
  return (
    <>
      <PageTitle>Sin acceso</PageTitle>
      <Text mb="md">Su rol no permite usar esta pantalla. Si la necesita, pídala a la administración de la campaña.</Text>
      <Button component={Link} to="/">
        Ir al inicio
      </Button>
    </>
  );
}

/** What a screen that failed to load or threw shows, instead of a blank page. */
export function ScreenError() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error) ? error.statusText : error instanceof TypeError && /import|fetch/i.test(error.message) ? null : problemMessage(error);
  return (
    <Alert color="red" title="No se pudo mostrar esta pantalla" role="alert" m="md">
      <Stack gap="xs">
        <Text size="sm">{detail ?? 'La consola se actualizó o se perdió la conexión. Recargue la página.'}</Text>
        <Button size="xs" variant="white" w="fit-content" onClick={() => window.location.reload()}>
          Recargar
        </Button>
      </Stack>
    </Alert>
  );
}
