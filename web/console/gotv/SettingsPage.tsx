import { ActionIcon, Alert, Button, Card, Group, Loader, NumberInput, SimpleGrid, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { z } from 'zod';
import { settingsBody, type settingsView } from '../../../src/modules/gotv/gotv.settings.schemas';
import { gotvPolicy } from '../../../src/modules/gotv/gotv.policy';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { api, queryClient } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { GOTV } from './gotv';

type Settings = z.output<typeof settingsView>;
type CurvePoint = { time: string; fraction: number };
type HistoryEntry = Settings['curveHistory'][number];
interface DayCurve {
  date: string;
  countedStations: number;
  closedStations: number;
  turnoutCurve: CurvePoint[];
}

const SETTINGS = `${GOTV}/settings`;

/** The API's words for the day's rules (refinements written in English for the API), in Spanish. */
const WORDS: [RegExp, (...groups: string[]) => string][] = [
  [/closesAt \(([^)]+)\) must be after opensAt \(([^)]+)\)/, (closes, opens) => `El cierre (${closes}) debe ser después de la apertura (${opens}).`],
  [
    /date (\S+) must be after (\S+) \(election day, then each earlier polling day\)/,
    (date, previous) => `El ${date} debe ser después del ${previous} (el día de elecciones y luego cada día anterior).`,
  ],
  [
    /the curve must start at opensAt \(([^)]+)\) with fraction 0/,
    (opens) => `La curva debe empezar a la hora de apertura (${opens}) en 0 %: cambió el horario; vuelva a la curva por defecto o tome la de un día pasado.`,
  ],
  [
    /the curve must end at closesAt \(([^)]+)\) with fraction 1/,
    (closes) => `La curva debe terminar a la hora de cierre (${closes}) en 100 %: cambió el horario; vuelva a la curva por defecto o tome la de un día pasado.`,
  ],
  [/a turnoutCurve covers one day/, () => 'Una curva propia cubre un solo día: con días adicionales, guarde los días pasados en el historial de curvas.'],
  [/set the election date before later polling days/, () => 'Fije la fecha de elecciones antes de agregar días adicionales.'],
  [/expected HH:MM/, () => 'Escriba la hora como HH:MM (24 horas).'],
  [/expected a date as YYYY-MM-DD|must be a date from/, () => 'Escriba una fecha válida.'],
];

function say(error: unknown): string | undefined {
  if (typeof error !== 'string' && typeof error !== 'number') return undefined;
  const text = String(error);
  for (const [pattern, words] of WORDS) {
    const match = pattern.exec(text);
    if (match) return words(...match.slice(1));
  }
  return text;
}

const percent = (fraction: number) => `${Math.round(fraction * 100)} %`;

/** A curve in one line: each hour's share of the day's final turnout. */
function CurveLine({ points }: { points: CurvePoint[] }) {
  return (
    <Text size="sm" c="dimmed">
      {points.map((point) => `${point.time} ${percent(point.fraction)}`).join(' · ')}
    </Text>
  );
}

/** Learns a past day's curve from its counts (GET /api/gotv/day-curve) and hands it to the form. */
function PastDay({ onCurve, disabled }: { onCurve: (entry: HistoryEntry) => void; disabled: boolean }) {
  const [date, setDate] = useState('');
  const [label, setLabel] = useState('');
  const [error, setError] = useState<{ field: 'date' | 'label' | 'form'; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const add = async () => {
    setError(null);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return setError({ field: 'date', message: 'Elija la fecha del día pasado.' });
    if (!label.trim()) return setError({ field: 'label', message: 'Póngale un nombre (Elección de 2023, simulacro…).' });
    setBusy(true);
    try {
      const day = await api.get<DayCurve>(`${GOTV}/day-curve?date=${date}`);
      if (!day.countedStations) return setError({ field: 'date', message: 'Ese día no tiene conteos guardados: no hay curva que aprender.' });
      onCurve({ label: label.trim().slice(0, 80), electionDate: date, turnoutCurve: day.turnoutCurve });
      setDate('');
      setLabel('');
    } catch (caught) {
      setError({ field: 'form', message: problemMessage(caught) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap="xs">
      <Group align="flex-start">
        <TextInput
          type="date"
          label="Día pasado (elección anterior o simulacro)"
          value={date}
          onChange={(event) => setDate(event.currentTarget.value)}
          error={error?.field === 'date' ? error.message : undefined}
          disabled={disabled}
        />
        <TextInput
          label="Nombre de la curva"
          value={label}
          maxLength={80}
          onChange={(event) => setLabel(event.currentTarget.value)}
          error={error?.field === 'label' ? error.message : undefined}
          disabled={disabled}
        />
        <Button mt={25} variant="default" onClick={() => void add()} loading={busy} disabled={disabled}>
          Aprender la curva de ese día
        </Button>
      </Group>
      {error?.field === 'form' && (
        <Alert color="red" role="alert">
          {error.message}
        </Alert>
      )}
    </Stack>
  );
}

function SettingsForm({ settings, canManage }: { settings: Settings; canManage: boolean }) {
  const { form, submit, submitting, formError } = useSchemaForm(settingsBody, {
    initialValues: {
      electionDate: settings.electionDate ?? '',
      opensAt: settings.opensAt,
      closesAt: settings.closesAt,
      followingDays: settings.followingDays,
      curveHistory: settings.curveHistory,
      previousTurnoutSpread: settings.previousTurnoutSpread,
      ...(settings.turnoutCurve ? { turnoutCurve: settings.turnoutCurve } : {}),
    } as z.input<typeof settingsBody>,
    emptyAs: { electionDate: 'absent' },
  });
  const values = form.getValues();
  const errorAt = (path: string) => say(form.errors[path]);
  const onSubmit = submit(async (body) => {
    const saved = await api.put<Settings>(SETTINGS, body);
    queryClient.setQueryData(['gotv', 'settings'], saved);
    notifications.show({ color: 'green', message: 'Se guardaron los ajustes del día electoral.' });
  });
  const disabled = !canManage;
  const curveErrors = Object.entries(form.errors)
    .filter(([path]) => path === 'turnoutCurve' || path.startsWith('turnoutCurve.'))
    .map(([, message]) => say(message));

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Ajustes del día electoral">
      <Stack gap="md">
        {!canManage && <Alert color="blue">Su rol puede ver estos ajustes; los cambia el equipo de campaña.</Alert>}
        <Card withBorder component="section" aria-labelledby="jornada">
          <Title order={2} size="h4" id="jornada" mb="xs">
            Jornada
          </Title>
          <Text size="sm" mb="sm">
            La fecha es la de la campaña (la misma que usa finanzas). Las horas son las del puesto, en la hora de Colombia. Un reporte de un día anterior a la fecha cuenta como
            simulacro: no entra en las cifras del día.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput type="date" label="Fecha de elecciones" disabled={disabled} {...form.getInputProps('electionDate')} error={errorAt('electionDate')} />
            <TextInput type="time" label="Apertura" disabled={disabled} {...form.getInputProps('opensAt')} error={errorAt('opensAt')} />
            <TextInput type="time" label="Cierre" disabled={disabled} {...form.getInputProps('closesAt')} error={errorAt('closesAt')} />
          </SimpleGrid>
        </Card>

        <Card withBorder component="section" aria-labelledby="dias-siguientes">
          <Title order={2} size="h4" id="dias-siguientes" mb="xs">
            Días siguientes
          </Title>
          <Text size="sm" mb="sm">
            Solo si las urnas abren también otros días, cada uno después del anterior, con su horario. La noche entre ellos es una pausa.
          </Text>
          <Stack gap="xs">
            {(values.followingDays ?? []).map((_, index) => (
              <div key={index}>
                <Group align="flex-start">
                  <TextInput
                    type="date"
                    label={`Día ${index + 2}`}
                    disabled={disabled}
                    {...form.getInputProps(`followingDays.${index}.date`)}
                    error={errorAt(`followingDays.${index}.date`)}
                  />
                  <TextInput
                    type="time"
                    label="Apertura"
                    disabled={disabled}
                    {...form.getInputProps(`followingDays.${index}.opensAt`)}
                    error={errorAt(`followingDays.${index}.opensAt`)}
                  />
                  <TextInput
                    type="time"
                    label="Cierre"
                    disabled={disabled}
                    {...form.getInputProps(`followingDays.${index}.closesAt`)}
                    error={errorAt(`followingDays.${index}.closesAt`)}
                  />
                  <Button mt={25} variant="subtle" color="red" disabled={disabled} onClick={() => form.removeListItem('followingDays', index)}>
                    Quitar el día {index + 2}
                  </Button>
                </Group>
                {errorAt(`followingDays.${index}`) && (
                  <Text size="sm" c="red.8" role="alert">
                    {errorAt(`followingDays.${index}`)}
                  </Text>
                )}
              </div>
            ))}
            <Group>
              <Button
                variant="default"
                disabled={disabled}
                onClick={() => form.insertListItem('followingDays', { date: '', opensAt: values.opensAt || '08:00', closesAt: values.closesAt || '16:00' })}
              >
                Agregar un día
              </Button>
            </Group>
          </Stack>
        </Card>

        <Card withBorder component="section" aria-labelledby="curva">
          <Title order={2} size="h4" id="curva" mb="xs">
            Curva de participación
          </Title>
          <Text size="sm" mb="sm">
            Qué parte de la votación final llega a cada hora: la proyección la usa para estimar el cierre desde los conteos de la mañana. Sin curva propia se usa el promedio del
            historial, o la curva documentada por defecto.
          </Text>
          {values.turnoutCurve ? (
            <Stack gap={4}>
              <Text size="sm" fw={600}>
                Curva propia de la campaña
              </Text>
              <CurveLine points={values.turnoutCurve} />
              <Group>
                <Button variant="default" size="xs" disabled={disabled} onClick={() => form.setFieldValue('turnoutCurve', undefined)}>
                  Volver a la curva por defecto
                </Button>
              </Group>
            </Stack>
          ) : (
            <Text size="sm">{values.curveHistory?.length ? 'Se usa el promedio del historial.' : 'Se usa la curva por defecto.'}</Text>
          )}
          {curveErrors.map((message) => (
            <Text key={message} size="sm" c="red.8" role="alert">
              {message}
            </Text>
          ))}
          <Title order={3} size="h5" mt="md" mb="xs">
            Historial de curvas
          </Title>
          {values.curveHistory?.length ? (
            <Table verticalSpacing={4} fz="sm" mb="sm">
              <Table.Caption>Curvas de días pasados: su promedio y su dispersión</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Nombre</Table.Th>
                  <Table.Th>Fecha</Table.Th>
                  <Table.Th>Curva</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Acciones</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {values.curveHistory.map((entry, index) => (
                  <Table.Tr key={`${entry.label}-${index}`}>
                    <Table.Td>{entry.label}</Table.Td>
                    <Table.Td>{entry.electionDate ?? '—'}</Table.Td>
                    <Table.Td>
                      <CurveLine points={entry.turnoutCurve} />
                      {errorAt(`curveHistory.${index}`) && (
                        <Text size="sm" c="red.8">
                          {errorAt(`curveHistory.${index}`)}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Button
                          size="xs"
                          variant="default"
                          disabled={disabled || Boolean(values.followingDays?.length)}
                          onClick={() => form.setFieldValue('turnoutCurve', entry.turnoutCurve)}
                        >
                          Usar como curva propia
                        </Button>
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          disabled={disabled}
                          aria-label={`Quitar ${entry.label}`}
                          onClick={() => form.removeListItem('curveHistory', index)}
                        >
                          ✕
                        </ActionIcon>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          ) : (
            <Text size="sm" mb="sm">
              Aún no hay curvas de días pasados.
            </Text>
          )}
          <PastDay disabled={disabled} onCurve={(entry) => form.insertListItem('curveHistory', entry)} />
          {errorAt('curveHistory') && (
            <Text size="sm" c="red.8" role="alert">
              {errorAt('curveHistory')}
            </Text>
          )}
        </Card>

        <Card withBorder component="section" aria-labelledby="anterior">
          <Title order={2} size="h4" id="anterior" mb="xs">
            Participación anterior
          </Title>
          <Text size="sm" mb="sm">
            Cuánto puede apartarse la participación de hoy de la elección anterior de cada puesto (que se importa con el archivo code,previousTurnout en Importar puestos y
            votantes). Son desviaciones en escala logarítmica: 0,1 es cerca de ±10 %.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NumberInput
              label="De todo el día"
              decimalScale={3}
              step={0.01}
              min={0.01}
              max={1}
              disabled={disabled}
              {...form.getInputProps('previousTurnoutSpread.day')}
              error={errorAt('previousTurnoutSpread.day')}
            />
            <NumberInput
              label="Por territorio"
              decimalScale={3}
              step={0.01}
              min={0}
              max={1}
              disabled={disabled}
              {...form.getInputProps('previousTurnoutSpread.territory')}
              error={errorAt('previousTurnoutSpread.territory')}
            />
            <NumberInput
              label="Por puesto"
              decimalScale={3}
              step={0.01}
              min={0.01}
              max={1}
              disabled={disabled}
              {...form.getInputProps('previousTurnoutSpread.station')}
              error={errorAt('previousTurnoutSpread.station')}
            />
          </SimpleGrid>
        </Card>

        {formError && (
          <Alert color="red" role="alert">
            {say(formError)}
          </Alert>
        )}
        {canManage && (
          <Group>
            <Button type="submit" loading={submitting}>
              Guardar ajustes
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** `/dia-electoral/ajustes`: the election day's date, hours, later days, turnout curve and its history, and the previous turnout's spread. */
export default function SettingsPage() {
  const { user } = useSignedIn();
  const settings = useQuery({ queryKey: ['gotv', 'settings'], queryFn: () => api.get<Settings>(SETTINGS) });
  return (
    <>
      <PageTitle>Ajustes del día electoral</PageTitle>
      {settings.isPending ? (
        <Loader aria-label="Cargando" />
      ) : settings.isError ? (
        <Alert color="red">{problemMessage(settings.error)}</Alert>
      ) : (
        <SettingsForm key={settings.dataUpdatedAt} settings={settings.data} canManage={rolePermitted(user.role, gotvPolicy.roles('manageSettings'))} />
      )}
    </>
  );
}
