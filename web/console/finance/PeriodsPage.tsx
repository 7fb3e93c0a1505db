import { Alert, Button, Card, Group, List, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { settingsBody } from '../../../src/modules/finance/finance.schemas';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { formatDate, localToday } from '../app/format';
import { schemaErrors } from '../app/forms';
import { PageTitle } from '../app/pages';
import { useSignedIn } from '../app/session';
import { SETTINGS, financeProblem, whoMay, type Settings } from './data';
import { FinanceTabs } from './FinanceTabs';
import { useSettings } from './NewEntryPage';

/** The day before `day` (YYYY-MM-DD). */
function dayBefore(day: string): string {
  const date = new Date(`${day}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

/** What the screen checks before asking: the API's schema for the day, then the rules it states (a past day, never backwards). */
function closingError(day: string, settings: Settings, today: string): string | null {
  if (!day) return 'Elija el último día que se cierra.';
  const fromSchema = schemaErrors(settingsBody, { spendingCap: settings.spendingCap, closedThrough: day }).closedThrough;
  if (fromSchema) return String(fromSchema);
  if (day >= today) return 'Solo se cierra un día que ya terminó: elija ayer o antes.';
  if (settings.closedThrough && day <= settings.closedThrough) return `Ya está cerrado hasta el ${formatDate(settings.closedThrough)}: elija un día posterior.`;
  return null;
}

/**
 * `/finanzas/cierre`: the closed period. A manager closes every day up to one already over; the
 * API never reopens it (it only moves forward), so the screen says so and points to reversals.
 */
export default function PeriodsPage() {
  const { user } = useSignedIn();
  const configures = rolePermitted(user.role, financePolicy.roles('configure'));
  const settings = useSettings();
  const today = localToday();
  const [day, setDay] = useState('');
  const [touched, setTouched] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const current = settings.data;
  const error = current && touched ? closingError(day, current, today) : null;

  return (
    <>
      <PageTitle>Periodos cerrados</PageTitle>
      <FinanceTabs />
      {settings.isError && (
        <Alert color="red" role="alert">
          {financeProblem(settings.error)}
        </Alert>
      )}
      {!current ? (
        !settings.isError && <Loader aria-label="Cargando" />
      ) : (
        <Stack maw={820}>
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              {current.closedThrough ? `Cerrado hasta el ${formatDate(current.closedThrough)}` : 'Ningún periodo cerrado'}
            </Title>
            <List size="sm" spacing={4}>
              <List.Item>Los movimientos con fecha hasta ese día ya no se agregan, cambian ni borran; sí se les puede subir su primer soporte.</List.Item>
              <List.Item>Un error de un periodo cerrado se corrige con una reversión (un movimiento de hoy con el valor opuesto), desde el movimiento.</List.Item>
              <List.Item>El cierre es definitivo: solo avanza, nunca se reabre, para que lo reportado no cambie después.</List.Item>
            </List>
          </Card>
          {configures ? (
            <Card withBorder component="section" aria-labelledby="close-title">
              <form
                noValidate
                onSubmit={(event) => {
                  event.preventDefault();
                  setTouched(true);
                  if (!closingError(day, current, today)) setConfirming(true);
                }}
              >
                <Stack>
                  <Title order={2} size="h4" id="close-title">
                    Cerrar un periodo
                  </Title>
                  <TextInput
                    type="date"
                    label="Cerrar hasta el día (incluido)"
                    description="Un día que ya terminó, posterior al cierre actual."
                    min={current.closedThrough ?? undefined}
                    max={dayBefore(today)}
                    value={day}
                    error={error}
                    onChange={(event) => setDay(event.currentTarget.value)}
                    onBlur={() => setTouched(true)}
                  />
                  <Group justify="flex-end">
                    <Button type="submit">Cerrar el periodo</Button>
                  </Group>
                </Stack>
              </form>
            </Card>
          ) : (
            <Text size="sm">Cierra los periodos {whoMay('configure')}.</Text>
          )}
        </Stack>
      )}
      <ConfirmDialog
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Cerrar el periodo"
        confirmLabel={day ? `Cerrar hasta el ${formatDate(day)}` : 'Cerrar'}
        danger
        describeError={financeProblem}
        onConfirm={async () => {
          await api.put<Settings>(SETTINGS, { spendingCap: current!.spendingCap, closedThrough: day });
          await queryClient.invalidateQueries({ queryKey: ['finance'] });
          notifications.show({ color: 'green', message: `Periodo cerrado hasta el ${formatDate(day)}.` });
          setDay('');
          setTouched(false);
        }}
      >
        <Text>
          Todo movimiento con fecha hasta el {day ? formatDate(day) : '…'} queda cerrado para siempre: no se podrá agregar, cambiar ni reabrir; solo corregir con reversiones.
        </Text>
      </ConfirmDialog>
    </>
  );
}
