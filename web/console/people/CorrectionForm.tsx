import { Alert, Anchor, Button, Card, Group, SimpleGrid, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { correctPersonBody } from '../../../src/modules/audience/audience.correction.schemas';
import { api, ApiError, queryClient } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { formatPhone } from '../app/format';
import { peopleProblem } from './problems';
import { mergePath, personPath, type Person, type PersonDetail } from './types';

const MESSAGES = {
  phone: 'No es un número de teléfono válido: un celular colombiano como 300 123 4567, o con el indicativo de su país (+1 …).',
  email: 'No es una dirección de correo.',
  documentId: 'Una cédula tiene de 5 a 12 dígitos (los puntos, espacios y guiones no cuentan).',
};

type Correctable = 'name' | 'phone' | 'email' | 'documentId';
const CORRECTABLE: Correctable[] = ['name', 'phone', 'email', 'documentId'];

/** Who already has the phone or email staff typed: a 409 names them, so the two can be merged instead. */
interface Conflict {
  field: 'phone' | 'email';
  contactId: string;
}

function ConflictNotice({ personId, conflict }: { personId: string; conflict: Conflict }) {
  const other = useQuery({ queryKey: ['person', conflict.contactId], queryFn: () => api.get<PersonDetail>(`/api/audience/contacts/${conflict.contactId}`) });
  const what = conflict.field === 'phone' ? 'este teléfono' : 'este correo';
  return (
    <Alert color="orange" role="alert" title={`Otra persona ya tiene ${what}`}>
      <Stack gap="xs">
        <Text size="sm">
          {other.data ? (
            <>
              Lo tiene{' '}
              <Anchor component={Link} to={personPath(conflict.contactId)} inherit>
                {other.data.name}
              </Anchor>
              {other.data.phone ? ` (${formatPhone(other.data.phone)})` : ''}.
            </>
          ) : (
            'Lo tiene otra persona de la base.'
          )}{' '}
          Si son la misma persona, fusiónelas en lugar de corregir: la fusión junta sus datos, su historia y sus autorizaciones, y se puede deshacer durante 24 horas.
        </Text>
        <Group gap="xs">
          <Button component={Link} to={mergePath(personId, conflict.contactId)} size="xs" color="orange">
            Fusionar las dos personas
          </Button>
          <Button component={Link} to={personPath(conflict.contactId)} size="xs" variant="default">
            Ver a esa persona
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

/**
 * Corrects the person's name, phone, email or cédula with the route's own schema (a phone read in
 * any format, as the server reads it); only what changed is sent. An emptied phone, email or
 * cédula is removed (a person keeps a phone or an email).
 */
export function CorrectionForm({ person }: { person: PersonDetail }) {
  const initialValues = { name: person.name, phone: person.phone ?? '', email: person.email ?? '', documentId: person.documentId ?? '' };
  const { form, submit, submitting, formError, setFormError } = useSchemaForm(correctPersonBody, {
    initialValues,
    emptyAs: { phone: 'null', email: 'null', documentId: 'null' },
    messages: MESSAGES,
  });
  const [conflict, setConflict] = useState<Conflict | null>(null);

  const onSubmit = submit(async (values) => {
    setConflict(null);
    const held = { name: person.name, phone: person.phone, email: person.email, documentId: person.documentId };
    const changes = Object.fromEntries(CORRECTABLE.filter((field) => (values[field] ?? null) !== held[field]).map((field) => [field, values[field] ?? null]));
    if (!Object.keys(changes).length) return setFormError('No hay cambios que guardar.');
    try {
      await api.patch<Person>(`/api/audience/contacts/${person.id}`, changes);
    } catch (error) {
      const code = error instanceof ApiError ? error.problem?.code : undefined;
      const contactId = error instanceof ApiError ? error.problem?.contactId : undefined;
      if ((code === 'phone_held' || code === 'email_held') && typeof contactId === 'string') return setConflict({ field: code === 'phone_held' ? 'phone' : 'email', contactId });
      if (code === 'identity_required' || code === 'not_found') return setFormError(peopleProblem(error));
      throw error;
    }
    notifications.show({ color: 'green', title: 'Datos corregidos', message: 'La corrección quedó en la historia de la persona.' });
    await queryClient.invalidateQueries({ queryKey: ['person', person.id] });
    void queryClient.invalidateQueries({ queryKey: ['list'] });
  });

  return (
    <Card withBorder component="section" aria-labelledby="corregir">
      <Title order={2} size="h4" id="corregir" mb="sm">
        Corregir datos
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="xs">
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          {conflict && <ConflictNotice personId={person.id} conflict={conflict} />}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
            <TextInput label="Nombre" required autoComplete="off" {...form.getInputProps('name')} />
            <TextInput label="Teléfono" description="En cualquier formato" type="tel" autoComplete="off" {...form.getInputProps('phone')} />
            <TextInput label="Correo" type="email" autoComplete="off" {...form.getInputProps('email')} />
            <TextInput label="Cédula" autoComplete="off" {...form.getInputProps('documentId')} />
          </SimpleGrid>
          <Text size="xs" c="dimmed">
            Un campo vacío se borra. Las autorizaciones no cambian: son de la persona, no del número o del correo.
          </Text>
          <Group justify="flex-end">
            <Button type="submit" size="xs" loading={submitting}>
              Guardar corrección
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

/** The person's tags (staff's labels: `líder`, `transporte`), replaced as a list. */
export function TagsEditor({ person }: { person: PersonDetail }) {
  const { form, submit, submitting, formError } = useSchemaForm(correctPersonBody, { initialValues: { tags: person.tags } });
  const onSubmit = submit(async (values) => {
    await api.patch<Person>(`/api/audience/contacts/${person.id}`, { tags: values.tags });
    notifications.show({ color: 'green', message: 'Etiquetas guardadas.' });
    await queryClient.invalidateQueries({ queryKey: ['person', person.id] });
    void queryClient.invalidateQueries({ queryKey: ['list'] });
  });
  return (
    <Card withBorder component="section" aria-labelledby="etiquetas">
      <Title order={2} size="h4" id="etiquetas" mb="sm">
        Etiquetas
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="xs">
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <TagsInput
            label="Etiquetas de la persona"
            description="Escriba una y pulse Enter o coma. Hasta 30, de 40 caracteres cada una."
            placeholder="Ej.: líder, transporte"
            splitChars={[',', ';']}
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar todas las etiquetas' }}
            {...form.getInputProps('tags')}
            // A rule broken by one tag is reported at `tags.<n>`: shown on the field.
            error={Object.entries(form.errors).find(([path]) => path === 'tags' || path.startsWith('tags.'))?.[1]}
          />
          <Group justify="flex-end">
            <Button type="submit" size="xs" loading={submitting}>
              Guardar etiquetas
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

/** Both forms, as the person's page loads them (a chunk of their own: the phone rules weigh more than the page). */
export default function PersonEditing({ person }: { person: PersonDetail }) {
  return (
    <>
      <TagsEditor key={person.tags.join('|')} person={person} />
      <CorrectionForm key={`${person.name}|${person.phone}|${person.email}|${person.documentId}`} person={person} />
    </>
  );
}
