import { Anchor, Badge, Button, Card, Group, List, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { withdrawalBody } from '../../../src/modules/audience/audience.schemas';
import { api, queryClient } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { fileNamePart, saveFile } from '../app/files';
import { formatDate, formatDateTime, localToday } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { CHANNEL_LABELS, CONSENT_SOURCE_LABELS, CONSENT_STATE_COLOURS, CONSENT_STATE_LABELS, label } from './labels';
import { peopleProblem } from './problems';
import type { ConsentRecord, Erasure, PersonDetail, Withdrawal } from './types';

type Channel = keyof typeof CHANNEL_LABELS;
const CHANNELS: Channel[] = ['whatsapp', 'email'];

function channelsOf(record: ConsentRecord): string {
  const named = CHANNELS.filter((channel) => (channel === 'whatsapp' ? record.whatsappOptIn : record.emailOptIn)).map((channel) => CHANNEL_LABELS[channel]);
  return named.length ? named.join(' y ') : 'ningún canal';
}

/** One consent or withdrawal: what, for which channels, from where, when, and the exact text (opened on demand). */
function ConsentEntry({ record }: { record: ConsentRecord }) {
  const given = record.action === 'given';
  return (
    <li>
      <Text size="sm" fw={500}>
        {given ? `Autorizó ${channelsOf(record)}` : `Retiró su autorización${record.whatsappOptIn || record.emailOptIn ? ` de ${channelsOf(record)}` : ''}`}
      </Text>
      <Text size="xs" c="dimmed">
        <time dateTime={record.at}>{formatDateTime(record.at)}</time> · {label(CONSENT_SOURCE_LABELS, record.source)}
      </Text>
      {record.evidence && (
        <Text size="xs" mt={2}>
          Evidencia: {record.evidence}
        </Text>
      )}
      <details style={{ marginTop: 4 }}>
        <summary style={{ cursor: 'pointer', fontSize: 'var(--mantine-font-size-xs)' }}>{given ? 'Texto que aceptó' : 'Texto del retiro'}</summary>
        <Text size="xs" mt={4} p="xs" bg="gray.0" style={{ whiteSpace: 'pre-wrap' }}>
          {record.text.text}
        </Text>
        {record.text.privacyPolicyUrl && (
          <Anchor size="xs" href={record.text.privacyPolicyUrl} target="_blank" rel="noopener noreferrer">
            Política de tratamiento de datos
          </Anchor>
        )}
      </details>
    </li>
  );
}

function WithdrawalDialog({ person, opened, onClose }: { person: PersonDetail; opened: boolean; onClose: () => void }) {
  const reachable = CHANNELS.find((channel) => person.consent[channel] === 'reachable') ?? 'whatsapp';
  const { form } = useSchemaForm(withdrawalBody, { initialValues: { channel: reachable, note: '' } });
  const close = () => {
    form.reset();
    onClose();
  };
  const confirm = async () => {
    if (form.validate().hasErrors) return false;
    const { channel, note } = form.getValues();
    const answer = await api.post<Withdrawal>(`/api/audience/contacts/${person.id}/withdrawals`, { channel, note: note.trim() });
    notifications.show({
      color: answer.changed ? 'green' : 'blue',
      title: answer.changed ? 'Retiro registrado' : 'Ya lo había retirado',
      message: answer.changed
        ? `${person.name} ya no recibirá mensajes por ${CHANNEL_LABELS[channel]} de la campaña.`
        : `${person.name} ya había retirado su autorización de ${CHANNEL_LABELS[channel]}: no se registró de nuevo.`,
    });
    form.reset();
    await queryClient.invalidateQueries({ queryKey: ['person', person.id] });
    void queryClient.invalidateQueries({ queryKey: ['list'] });
  };
  return (
    <ConfirmDialog opened={opened} onClose={close} title="Registrar retiro de autorización" confirmLabel="Registrar retiro" onConfirm={confirm} describeError={peopleProblem}>
      <Text size="sm">
        La persona pidió no recibir más mensajes por un canal (por teléfono, en persona o por escrito). Desde ahora no se le enviará nada por ese canal, y el retiro queda como
        prueba con su nota, su nombre de usuario y la hora.
      </Text>
      <Select
        label="Canal"
        data={CHANNELS.map((channel) => ({ value: channel, label: `${CHANNEL_LABELS[channel]} (${CONSENT_STATE_LABELS[person.consent[channel]].toLowerCase()})` }))}
        allowDeselect={false}
        required
        comboboxProps={{ withinPortal: true }}
        {...form.getInputProps('channel')}
      />
      <Textarea
        label="Cómo lo pidió"
        description="Queda como evidencia del retiro: quién lo pidió, cuándo y por qué medio."
        placeholder="Ej.: Llamó a la sede el 12 de octubre y pidió que no le escriban más."
        autosize
        minRows={3}
        required
        {...form.getInputProps('note')}
      />
    </ConfirmDialog>
  );
}

function ExportDialog({ person, opened, onClose }: { person: PersonDetail; opened: boolean; onClose: () => void }) {
  const confirm = async () => {
    const blob = await api.download(`/api/audience/contacts/${person.id}/export`, 120_000);
    saveFile(blob, `datos-personales-${fileNamePart(person.name)}-${localToday()}.json`);
    notifications.show({ color: 'green', title: 'Datos exportados', message: 'El archivo se descargó. La exportación quedó registrada en la auditoría.' });
    void queryClient.invalidateQueries({ queryKey: ['person', person.id] });
  };
  return (
    <ConfirmDialog opened={opened} onClose={onClose} title="Exportar datos personales" confirmLabel="Descargar sus datos" onConfirm={confirm} describeError={peopleProblem}>
      <Text size="sm">
        Se descargará un archivo (JSON) con todo lo que la campaña tiene de <strong>{person.name}</strong>: sus datos, de dónde llegó, cada autorización y retiro con el texto
        exacto, y lo que guarda cada módulo (afiches, WhatsApp, correo, PQRS, eventos, día electoral).
      </Text>
      <Text size="sm">
        Es la respuesta a su derecho a conocer sus datos (Ley 1581 de 2012). <strong>La exportación queda registrada en la auditoría</strong>: quién la hizo y cuándo. Entregue el
        archivo solo a la persona o a quien ella autorice.
      </Text>
    </ConfirmDialog>
  );
}

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

function ErasureDialog({ person, opened, onClose, onErased }: { person: PersonDetail; opened: boolean; onClose: () => void; onErased: (erasure: Erasure) => void }) {
  const [typed, setTyped] = useState('');
  const confirmed = fold(typed) === fold(person.name) || typed.trim() === 'SUPRIMIR';
  const close = () => {
    setTyped('');
    onClose();
  };
  const confirm = async () => {
    const erasure = await api.delete<Erasure>(`/api/audience/contacts/${person.id}`);
    onErased(erasure);
  };
  return (
    <ConfirmDialog
      opened={opened}
      onClose={close}
      title="Suprimir los datos de esta persona"
      confirmLabel="Suprimir datos"
      danger
      confirmDisabled={!confirmed}
      onConfirm={confirm}
      describeError={peopleProblem}
    >
      <Text size="sm">
        La persona pidió que la campaña suprima sus datos (Ley 1581 de 2012). <strong>No se puede deshacer.</strong>
      </Text>
      <div>
        <Text size="sm" fw={600}>
          Se borra
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>Su nombre, teléfono, correo y cédula, en todos los módulos.</List.Item>
          <List.Item>Lo que escribió y se le escribió (WhatsApp, notas del equipo), y los registros que se fusionaron con ella.</List.Item>
          <List.Item>Los mensajes que aún no se le habían enviado: no se enviarán.</List.Item>
        </List>
      </div>
      <div>
        <Text size="sm" fw={600}>
          Se conserva, sin nada que la identifique
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>Las cifras de la campaña: un formulario conserva su campaña y su territorio; un mensaje, su estado y sus horas; un votante, su puesto y su mesa.</List.Item>
          <List.Item>Sus autorizaciones y retiros, como prueba de lo que aceptó y retiró.</List.Item>
          <List.Item>Un correo que rebotó sigue bloqueado, guardado como un código que no permite leerlo.</List.Item>
        </List>
      </div>
      <Text size="sm">Si la misma persona vuelve a escribir o a llenar un formulario, será una persona nueva.</Text>
      <TextInput
        label={`Para confirmar, escriba su nombre (${person.name}) o SUPRIMIR`}
        value={typed}
        onChange={(event) => setTyped(event.currentTarget.value)}
        autoComplete="off"
        data-autofocus
      />
    </ConfirmDialog>
  );
}

/**
 * What the person authorised, channel by channel, with every record's proof; and their rights
 * over their data, each behind a dialog that says what it does: a withdrawal they asked for, an
 * export of everything held, the erasure.
 */
export function ConsentPanel({ person, onErased }: { person: PersonDetail; onErased: (erasure: Erasure) => void }) {
  const [withdrawing, withdrawal] = useDisclosure(false);
  const [exporting, exportDialog] = useDisclosure(false);
  const [erasing, erasure] = useDisclosure(false);
  const optedOutAt = { whatsapp: person.whatsappOptedOutAt, email: person.emailOptedOutAt };
  const records = [...person.consents].reverse();
  return (
    <Card withBorder component="section" aria-labelledby="autorizaciones">
      <Title order={2} size="h4" id="autorizaciones" mb="sm">
        Autorizaciones y datos personales
      </Title>
      <Stack gap="xs">
        {CHANNELS.map((channel) => (
          <Group key={channel} gap="xs">
            <Text size="sm" fw={500} w={80}>
              {CHANNEL_LABELS[channel]}
            </Text>
            <Badge variant="dot" color={CONSENT_STATE_COLOURS[person.consent[channel]]} tt="none">
              {CONSENT_STATE_LABELS[person.consent[channel]]}
            </Badge>
            {person.consent[channel] === 'opted_out' && optedOutAt[channel] && (
              <Text size="xs" c="dimmed">
                el {formatDate(optedOutAt[channel])}
              </Text>
            )}
          </Group>
        ))}
      </Stack>
      <Title order={3} size="h6" mt="md" mb={4}>
        Registros, lo más reciente primero
      </Title>
      {records.length ? (
        <Stack component="ul" gap="sm" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {records.map((record) => (
            <ConsentEntry key={record.id} record={record} />
          ))}
        </Stack>
      ) : (
        <Text size="sm" c="dimmed">
          No hay registros de autorización.
        </Text>
      )}
      <Group gap="xs" mt="md">
        <Button variant="default" size="xs" onClick={withdrawal.open}>
          Registrar retiro
        </Button>
        <Button variant="default" size="xs" onClick={exportDialog.open}>
          Exportar datos
        </Button>
        <Button variant="outline" color="red" size="xs" onClick={erasure.open}>
          Suprimir datos
        </Button>
      </Group>
      <WithdrawalDialog person={person} opened={withdrawing} onClose={withdrawal.close} />
      <ExportDialog person={person} opened={exporting} onClose={exportDialog.close} />
      <ErasureDialog person={person} opened={erasing} onClose={erasure.close} onErased={onErased} />
    </Card>
  );
}
