import { Alert, Anchor, Button, Card, Loader, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { z } from 'zod';
import type { eventView } from '../../../src/modules/agenda/agenda.schemas';
import { api } from '../app/api';
import { formatDateTime, formatPercent, formatPesos } from '../app/format';
import { PageTitle } from '../app/pages';
import { ServerTable, type Column } from '../app/ServerTable';
import { TONES } from '../app/tones';
import { FINANCE, financeProblem, signedPesos, type EventBudget } from './data';
import { FinanceTabs } from './FinanceTabs';

type AgendaEvent = z.output<typeof eventView>;
const EVENTS = '/api/agenda/events';

/** One event's planned budget against what was spent and received under it (the API's figures). */
function BudgetCard({ eventId }: { eventId: string }) {
  const budget = useQuery({ queryKey: ['finance', 'event-budget', eventId], queryFn: () => api.get<EventBudget>(`${FINANCE}/events/${eventId}/budget`) });
  if (budget.isPending) return <Loader size="sm" aria-label="Cargando el presupuesto" />;
  if (budget.isError)
    return (
      <Alert color="red" role="alert">
        {financeProblem(budget.error)}
      </Alert>
    );
  const data = budget.data;
  const over = data.remaining !== null && data.remaining < 0;
  return (
    <Card withBorder component="section" aria-labelledby="event-budget-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="event-budget-title">
          {data.title}
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 5 }}>
          <div>
            <Text size="sm" c="dimmed">
              Presupuesto
            </Text>
            <Text fw={700}>{data.planned === null ? 'Sin presupuesto' : formatPesos(data.planned)}</Text>
          </div>
          <div>
            <Text size="sm" c="dimmed">
              Gastado
            </Text>
            <Text fw={700}>{formatPesos(data.spent)}</Text>
          </div>
          <div>
            <Text size="sm" c="dimmed">
              Recibido
            </Text>
            <Text fw={700}>{formatPesos(data.income)}</Text>
          </div>
          <div>
            <Text size="sm" c="dimmed">
              {over ? 'Sobrepasado por' : 'Queda'}
            </Text>
            <Text fw={700} c={over ? TONES.red.text : undefined}>
              {data.remaining === null ? '—' : formatPesos(Math.abs(data.remaining))}
            </Text>
          </div>
          <div>
            <Text size="sm" c="dimmed">
              Usado
            </Text>
            <Text fw={700}>{data.usedPct === null ? '—' : formatPercent(data.usedPct)}</Text>
          </div>
        </SimpleGrid>
        {data.usedPct !== null && <Progress value={Math.min(100, data.usedPct)} color={over ? 'red' : data.usedPct >= 80 ? 'orange' : 'green'} aria-label="Presupuesto usado" />}
        <Anchor component={Link} to={`/finanzas?evento=${data.eventId}`} size="sm">
          Ver sus {data.entries} movimientos en el libro
        </Anchor>
      </Stack>
    </Card>
  );
}

/** `/finanzas/eventos`: the agenda's events with their planned budgets; one chosen shows what was spent against it. */
export default function EventBudgetsPage() {
  const [chosen, setChosen] = useState<string | null>(null);
  const columns: Column<AgendaEvent>[] = [
    { key: 'title', header: 'Evento', render: (event) => event.title },
    { key: 'startsAt', header: 'Cuándo', render: (event) => formatDateTime(event.startsAt) },
    { key: 'budget', header: 'Presupuesto', numeric: true, render: (event) => (event.budget === null ? 'Sin presupuesto' : signedPesos(event.budget)) },
    {
      key: 'actions',
      header: 'Ejecución',
      render: (event) => (
        <Button
          size="xs"
          variant={chosen === event.id ? 'filled' : 'default'}
          aria-pressed={chosen === event.id}
          aria-label={`Ver la ejecución de ${event.title}`}
          onClick={() => setChosen(event.id)}
        >
          Ver la ejecución
        </Button>
      ),
    },
  ];
  return (
    <>
      <PageTitle>Presupuestos de eventos</PageTitle>
      <FinanceTabs />
      <Stack>
        <Text size="sm">El presupuesto de cada evento se fija en la agenda; aquí se compara con los movimientos registrados con ese evento (las reversiones se descuentan).</Text>
        {chosen && <BudgetCard eventId={chosen} />}
        <ServerTable<AgendaEvent>
          caption="Eventos de la agenda con su presupuesto"
          path={EVENTS}
          columns={columns}
          rowKey={(event) => event.id}
          selectedKey={chosen ?? undefined}
          empty="Aún no hay eventos en la agenda."
        />
      </Stack>
    </>
  );
}
