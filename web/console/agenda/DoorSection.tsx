import { Alert, Button, Checkbox, Group, Paper, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { walkInBody } from '../../../src/modules/agenda/agenda.schemas';
import { api } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { queryString, useUrlFilters } from '../app/filters';
import { formatTime } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { problemMessage } from '../app/problems';
import { ServerTable, type Column } from '../app/ServerTable';
import { TONES } from '../app/tones';
import { AGENDA_PROBLEMS, attendeesPath, eventPath, type AgendaEvent, type Attendee, type CheckInResult } from './data';
import { AnswerBadge, refreshPeople } from './RsvpSection';

const SCANNED_CODE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a check-in did, in words. */
function checkedInMessage(name: string, result: CheckInResult): string {
  return result.created ? `Entrada registrada: ${name}, a las ${formatTime(result.checkedInAt)}.` : `${name} ya había entrado a las ${formatTime(result.checkedInAt)}.`;
}

/** Someone new at the door: their data and the authorisation they accepted, word for word. */
function WalkInForm({ event }: { event: AgendaEvent }) {
  const initial = { name: '', phone: '', email: '', whatsappOptIn: false, emailOptIn: false, consentText: '' };
  const { form, submit, submitting, formError } = useSchemaForm(
    walkInBody,
    { initialValues: initial, sentAs: 'walkIn', emptyAs: { phone: 'absent', email: 'absent' }, messages: { phone: 'Escriba un teléfono o un correo.' } },
    AGENDA_PROBLEMS,
  );
  const onSubmit = submit(async (walkIn) => {
    const result = await api.post<CheckInResult>(`${eventPath(event.id)}/check-in`, { walkIn });
    notifications.show({ color: 'green', message: checkedInMessage(walkIn.name, result) });
    // The authorisation text stays for the next person: the same one is read to everyone at this door.
    form.setValues({ ...initial, consentText: walkIn.consentText });
    await refreshPeople(event.id);
  });
  return (
    <Paper withBorder p="md" mt="lg" component="section" aria-labelledby="walk-in">
      <Title order={2} size="h4" id="walk-in" mb="xs">
        Llegó alguien sin inscribirse
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput label="Nombre" required {...form.getInputProps('name')} />
            <TextInput label="Teléfono" type="tel" description="Un teléfono o un correo" {...form.getInputProps('phone')} />
            <TextInput label="Correo" type="email" {...form.getInputProps('email')} />
          </SimpleGrid>
          <Group>
            <Checkbox label="Acepta mensajes por WhatsApp" {...form.getInputProps('whatsappOptIn', { type: 'checkbox' })} />
            <Checkbox label="Acepta mensajes por correo" {...form.getInputProps('emailOptIn', { type: 'checkbox' })} />
          </Group>
          <Textarea
            label="Autorización de datos que aceptó"
            description="El texto exacto que la persona leyó y aceptó (Ley 1581): queda como prueba. Se conserva para la siguiente persona."
            required
            autosize
            minRows={2}
            {...form.getInputProps('consentText')}
          />
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={submitting}>
              Registrar su entrada
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/** `/agenda/:id/puerta`: find a name (or scan a code) and record that they came; walk-ins with their consent. */
export function DoorSection({ event }: { event: AgendaEvent }) {
  const filters = useUrlFilters(['buscar'] as const);
  const [typed, setTyped] = useState(filters.values.buscar ?? '');
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [undoing, setUndoing] = useState<Attendee | null>(null);

  const checkIn = async (contactId: string, name: string, method: 'scan' | 'mark') => {
    setBusy(contactId);
    setProblem(null);
    try {
      const result = await api.post<CheckInResult>(`${eventPath(event.id)}/check-in`, { contactId, method });
      notifications.show({ color: 'green', message: checkedInMessage(name, result) });
      await refreshPeople(event.id);
    } catch (error) {
      setProblem(problemMessage(error, AGENDA_PROBLEMS));
    } finally {
      setBusy(null);
    }
  };

  const search = async (submitted: FormEvent) => {
    submitted.preventDefault();
    const text = typed.trim();
    filters.set({ buscar: text });
    // A scanner types the code and Enter: that person is checked in at once.
    if (SCANNED_CODE.test(text)) {
      const found = await api.get<{ data: Attendee[] }>(`${attendeesPath(event.id)}?q=${encodeURIComponent(text)}&limit=1`).catch(() => ({ data: [] as Attendee[] }));
      await checkIn(text.toLowerCase(), found.data[0]?.name ?? 'la persona del código', 'scan');
      setTyped('');
    }
  };

  const columns: Column<Attendee>[] = [
    { key: 'name', header: 'Persona', render: (row) => <Text fw={500}>{row.name}</Text> },
    { key: 'status', header: 'Respuesta', render: (row) => <AnswerBadge attendee={row} /> },
    {
      key: 'door',
      header: 'Entrada',
      render: (row) =>
        row.checkedInAt ? (
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" fw={600} c={TONES.green.text}>
              Entró a las <time dateTime={row.checkedInAt}>{formatTime(row.checkedInAt)}</time>
            </Text>
            <Button size="compact-xs" variant="subtle" onClick={() => setUndoing(row)} aria-label={`Deshacer la entrada de ${row.name}`}>
              Deshacer
            </Button>
          </Group>
        ) : (
          <Button size="xs" onClick={() => void checkIn(row.contactId, row.name, 'mark')} loading={busy === row.contactId} aria-label={`Registrar entrada de ${row.name}`}>
            Registrar entrada
          </Button>
        ),
    },
  ];

  const query = filters.values.buscar && !SCANNED_CODE.test(filters.values.buscar) ? filters.values.buscar : undefined;
  return (
    <Stack gap={0}>
      <Text fw={700} mb="sm" aria-live="polite">
        {`Entraron ${event.counts.checkedIn} · confirmados ${event.counts.going}${event.capacity ? ` de ${event.capacity}` : ''}`}
      </Text>
      {event.status !== 'scheduled' && (
        <Alert color="gray" mb="md">
          Solo se registran entradas en eventos programados.
        </Alert>
      )}
      <form onSubmit={(submitted) => void search(submitted)} role="search" aria-label="Buscar en la puerta">
        <Group align="flex-end" gap="xs" wrap="nowrap" mb="md">
          <TextInput
            label="Nombre o código escaneado"
            description="Escriba parte del nombre (sin importar tildes), o lea con el lector el código de la persona: su entrada se registra al instante."
            value={typed}
            onChange={(change) => setTyped(change.currentTarget.value)}
            style={{ flex: 1 }}
            maxLength={100}
            type="search"
            data-autofocus
          />
          <Button type="submit">Buscar</Button>
        </Group>
      </form>
      {problem && (
        <Alert color="red" role="alert" mb="sm" withCloseButton closeButtonLabel="Cerrar el aviso" onClose={() => setProblem(null)}>
          {problem}
        </Alert>
      )}
      <ServerTable<Attendee>
        caption="Personas inscritas y quienes ya entraron"
        path={`${attendeesPath(event.id)}${queryString({ q: query })}`}
        columns={columns}
        rowKey={(row) => row.contactId}
        empty={query ? 'Nadie con ese nombre respondió a este evento: regístrelo abajo si llegó sin inscribirse.' : 'Aún nadie ha respondido ni entrado.'}
      />
      <WalkInForm event={event} />
      <ConfirmDialog
        opened={undoing !== null}
        onClose={() => setUndoing(null)}
        title="Deshacer la entrada"
        confirmLabel="Deshacer la entrada"
        describeError={(error) => problemMessage(error, AGENDA_PROBLEMS)}
        onConfirm={async () => {
          await api.delete(`${eventPath(event.id)}/check-ins/${undoing!.contactId}`);
          setUndoing(null);
          await refreshPeople(event.id);
        }}
      >
        <Text>Se borra la entrada de {undoing?.name}, registrada por error. Su respuesta al evento no cambia.</Text>
      </ConfirmDialog>
    </Stack>
  );
}
