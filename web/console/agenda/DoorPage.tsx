import { Alert, Anchor, Card, Loader, SimpleGrid, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { api } from '../app/api';
import { queryString } from '../app/filters';
import { formatDate } from '../app/format';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { EVENTS_PATH, timeRange, type AgendaEvent } from './data';

const HOUR = 3_600_000;

/**
 * `/agenda/puerta`: the events whose door is open now (from six hours before the start to a day
 * after the end, the API's window) that this account runs, each leading to its check-in screen.
 * A volunteer who organises an event comes here from the menu.
 */
export default function DoorPage() {
  const { user } = useSignedIn();
  const events = useQuery({
    queryKey: ['agenda', 'door', user.id],
    queryFn: () => {
      const now = Date.now();
      const window = queryString({ status: 'scheduled', from: new Date(now - 24 * HOUR).toISOString(), to: new Date(now + 6 * HOUR).toISOString() });
      return api.all<AgendaEvent>(`${EVENTS_PATH}${window}`, 400);
    },
    // Doors open and close as time passes.
    refetchInterval: 60_000,
  });
  const mine = (events.data ?? []).filter((event) => agendaPolicy.allows(user, 'edit', event));
  return (
    <>
      <PageTitle>Registrar entradas</PageTitle>
      <Text mb="md">
        Los eventos que usted organiza con la puerta abierta: desde seis horas antes del inicio hasta un día después del final. Elija uno para buscar a la gente por nombre o leer
        su código.
      </Text>
      {events.isError && (
        <Alert color="red" role="alert">
          {problemMessage(events.error)}
        </Alert>
      )}
      {events.isPending && <Loader size="sm" aria-label="Cargando eventos" />}
      {events.isSuccess && mine.length === 0 && <Text c="dimmed">Ningún evento suyo tiene la puerta abierta ahora.</Text>}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {mine.map((event) => (
          <Card key={event.id} withBorder>
            <Anchor component={Link} to={`/agenda/${event.id}/puerta`} fw={600}>
              {event.title}
            </Anchor>
            <Text size="sm">{`${formatDate(event.startsAt)}, ${timeRange(event)} (hora de Bogotá)`}</Text>
            <Text size="sm" c="dimmed">
              {[event.address, `${event.counts.checkedIn} entraron de ${event.counts.going} confirmados`].filter(Boolean).join(' · ')}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </>
  );
}
