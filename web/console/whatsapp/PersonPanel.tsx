import { Alert, Anchor, Badge, Button, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { z } from 'zod';
import type { personDetailView } from '../../../src/modules/audience/audience.people.schemas';
import type { requestPageView } from '../../../src/modules/pqrs/pqrs.schemas';
import { consentStates, pqrsStatuses, pqrsTypes } from '../../lib/labels';
import { api, ApiError } from '../app/api';
import { formatDateTime, formatRelative } from '../app/format';
import { problemMessage } from '../app/problems';
import { keys } from './inbox';
import { PqrsDialog } from './PqrsDialog';
import { useConversation } from './Thread';

type Person = z.output<typeof personDetailView>;
type PqrsPage = z.output<typeof requestPageView>;

const TIMELINE_ITEMS = 5;

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" fw={600} component="dt">
        {label}
      </Text>
      <Text size="sm" component="dd" m={0}>
        {children}
      </Text>
    </div>
  );
}

/** Who is writing: the person as the People API knows them, their latest facts, and their PQRS. */
export function PersonPanel({ conversationId }: { conversationId: string }) {
  const conversation = useConversation(conversationId);
  const contactId = conversation.data?.contact.id;
  const person = useQuery({
    queryKey: keys.person(contactId ?? ''),
    queryFn: () => api.get<Person>(`/api/audience/contacts/${contactId}`),
    enabled: Boolean(contactId),
  });
  const pqrs = useQuery({
    queryKey: keys.pqrsOf(contactId ?? ''),
    queryFn: () => api.get<PqrsPage>(`/api/pqrs?contactId=${contactId}&limit=10`),
    enabled: Boolean(contactId),
  });
  const [pqrsOpen, pqrsDialog] = useDisclosure(false);

  if (!contactId || person.isPending) return <Skeleton h={240} />;
  if (person.isError) {
    return (
      <Alert color={person.error instanceof ApiError && person.error.status === 404 ? 'gray' : 'red'} role="alert">
        {person.error instanceof ApiError && person.error.status === 404 ? 'No hay ficha de esta persona: sus datos fueron eliminados.' : problemMessage(person.error)}
      </Alert>
    );
  }
  const p = person.data;
  return (
    <Stack gap="md">
      <div>
        <Title order={2} size="h5">
          {p.name}
        </Title>
        <Anchor component={Link} to={`/personas/${p.id}`} size="sm">
          Ver ficha completa
        </Anchor>
      </div>
      <Stack gap={6} component="dl" m={0}>
        <Field label="Teléfono">{p.phone ?? 'Sin teléfono'}</Field>
        <Field label="Correo">{p.email ?? 'Sin correo'}</Field>
        <Field label="Territorio">{[p.neighbourhood, p.territory?.name].filter(Boolean).join(' · ') || 'Sin territorio'}</Field>
        <Field label="Mensajes por WhatsApp">{consentStates[p.consent.whatsapp]}</Field>
        <Field label="Mensajes por correo">{consentStates[p.consent.email]}</Field>
        {p.tags.length > 0 && (
          <Field label="Etiquetas">
            <Group gap={4} component="span">
              {p.tags.map((tag) => (
                <Badge key={tag} size="sm" variant="light" color="gray">
                  {tag}
                </Badge>
              ))}
            </Group>
          </Field>
        )}
      </Stack>

      <section aria-labelledby="person-pqrs">
        <Group justify="space-between" mb={4}>
          <Title order={3} size="h6" id="person-pqrs">
            PQRS
          </Title>
          <Button size="compact-xs" variant="light" onClick={pqrsDialog.open}>
            Convertir en PQRS
          </Button>
        </Group>
        {pqrs.isError ? (
          <Text size="sm" c="red.8">
            {problemMessage(pqrs.error)}
          </Text>
        ) : pqrs.data?.data.length ? (
          <Stack gap={4} component="ul" className="plain-list">
            {pqrs.data.data.map((request) => (
              <li key={request.id}>
                <Anchor component={Link} to={`/pqrs/${request.id}`} size="sm">
                  {`${request.number}: ${request.subject}`}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {`${pqrsTypes[request.type]} · ${pqrsStatuses[request.status]}`}
                </Text>
              </li>
            ))}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            {pqrs.isPending ? 'Cargando…' : 'No ha radicado PQRS.'}
          </Text>
        )}
      </section>

      <section aria-labelledby="person-timeline">
        <Title order={3} size="h6" id="person-timeline" mb={4}>
          Lo último
        </Title>
        {p.timeline.data.length ? (
          <Stack gap={4} component="ul" className="plain-list">
            {p.timeline.data.slice(0, TIMELINE_ITEMS).map((item, index) => (
              <li key={`${item.module}-${item.refId ?? index}-${item.at}`}>
                <Text size="sm">{item.title}</Text>
                <Text size="xs" c="dimmed" title={formatDateTime(item.at)}>
                  {formatRelative(item.at)}
                </Text>
              </li>
            ))}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            Nada registrado aún.
          </Text>
        )}
      </section>
      {conversation.data && <PqrsDialog conversation={conversation.data} opened={pqrsOpen} onClose={pqrsDialog.close} />}
    </Stack>
  );
}
