import { Alert, Anchor, Grid, Group, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { audiencePolicy } from '../../../src/modules/audience/audience.policy';
import { pqrsPolicy } from '../../../src/modules/pqrs/pqrs.policy';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import type { Territory } from '../../lib/api-types';
import { api, ApiError } from '../app/api';
import { formatDate, formatDateTime, formatPhone } from '../app/format';
import { NotFoundPage, PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { AnswerSection } from './AnswerSection';
import { Attachments } from './Attachments';
import { QUEUE_PATH, useAssignees, useRequest, type PqrsRequest } from './data';
import { DueBadge } from './DueBadge';
import { Extension } from './Extension';
import { History } from './History';
import { ManageForm } from './ManageForm';
import { Section } from './Section';
import { CHANNEL_LABELS, PRIORITY_LABELS, STATUS_LABELS, termLabel, TYPE_LABELS } from './labels';

/** A `<dl>` of facts, two columns wide. */
function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <SimpleGrid component="dl" cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs" m={0}>
      {items.map(([term, value]) => (
        <div key={term}>
          <Text component="dt" size="xs" c="dimmed" fw={600}>
            {term}
          </Text>
          <Text component="dd" size="sm" m={0}>
            {value}
          </Text>
        </div>
      ))}
    </SimpleGrid>
  );
}

function TerritoryName({ id }: { id: string }) {
  const territory = useQuery({ queryKey: ['territories', 'one', id], queryFn: () => api.get<Territory>(`/api/territories/${id}`), staleTime: 300_000 });
  return <>{territory.data?.name ?? '…'}</>;
}

function Citizen({ request }: { request: PqrsRequest }) {
  const { user } = useSignedIn();
  const citizen = request.personal?.citizen;
  if (request.anonymous) return <Text size="sm">Denuncia anónima: no se guardó ningún dato de quien la presentó y no se le puede avisar.</Text>;
  if (request.citizenErased || !citizen) return <Text size="sm">Los datos del ciudadano fueron suprimidos a su solicitud.</Text>;
  return (
    <Stack gap="xs">
      <Facts
        items={[
          ['Nombre', citizen.name],
          ['Celular', citizen.phone ? formatPhone(citizen.phone) : 'No lo dejó'],
          ['Correo', citizen.email ?? 'No lo dejó'],
        ]}
      />
      {rolePermitted(user.role, audiencePolicy.roles('readPerson')) && (
        <Anchor component={Link} to={`/personas/${citizen.contactId}`} size="sm">
          Ver la ficha de {citizen.name}
        </Anchor>
      )}
    </Stack>
  );
}

/** One request: its facts and legal clock for everyone who reads the desk; the citizen, the texts, the files and the actions for those who handle it. */
export default function RequestPage() {
  const { id = '' } = useParams();
  const location = useLocation();
  const { user } = useSignedIn();
  const request = useRequest(id);
  const assignees = useAssignees();
  const mayHandle = rolePermitted(user.role, pqrsPolicy.roles('handle'));
  const mayConverse = rolePermitted(user.role, whatsappPolicy.roles('converse'));
  const queue = `${QUEUE_PATH}${(location.state as { queue?: string } | null)?.queue ?? ''}`;

  if (request.error instanceof ApiError && (request.error.status === 404 || request.error.status === 400)) return <NotFoundPage />;
  const back = (
    <Anchor component={Link} to={queue} size="sm">
      ← Volver a la cola
    </Anchor>
  );
  if (request.isError)
    return (
      <>
        {back}
        <Alert color="red" role="alert" mt="md">
          {problemMessage(request.error)}
        </Alert>
      </>
    );
  if (!request.data)
    return (
      <>
        {back}
        <Skeleton h={300} mt="md" />
      </>
    );
  const r = request.data;
  const personal = r.personal;
  const assignee = r.assigneeId ? (assignees.byId.get(r.assigneeId)?.name ?? 'Otra persona del equipo') : 'Sin asignar';

  return (
    <>
      {back}
      <Group justify="space-between" align="flex-start" mt="xs" wrap="wrap">
        <div>
          <PageTitle>{r.number}</PageTitle>
          <Text size="lg" mt={-8} mb="md">
            {r.subject}
          </Text>
        </div>
        <DueBadge request={r} size="lg" />
      </Group>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Stack gap="md">
            <Section title="Solicitud" id="pqrs-facts">
              <Facts
                items={[
                  ['Tipo', TYPE_LABELS[r.type]],
                  ['Estado', STATUS_LABELS[r.status]],
                  ['Prioridad', PRIORITY_LABELS[r.priority]],
                  ['Canal', CHANNEL_LABELS[r.channel]],
                  ['Recibida', formatDateTime(r.receivedAt)],
                  [
                    'Vence',
                    r.extension
                      ? `${formatDate(r.dueDate)} (prorrogado; antes ${formatDate(r.originalDueDate)})`
                      : `${formatDate(r.dueDate)} (término de ${termLabel(r.termDays)})`,
                  ],
                  ['Responsable', assignee],
                  ['Territorio', r.territoryId ? <TerritoryName id={r.territoryId} /> : 'Sin territorio'],
                  ...(r.answeredAt ? [['Respondida', `${formatDateTime(r.answeredAt)} (${r.answeredLate ? 'fuera de término' : 'a tiempo'})`] as [string, ReactNode]] : []),
                  ...(r.closedAt ? [['Cerrada', formatDateTime(r.closedAt)] as [string, ReactNode]] : []),
                ]}
              />
              {r.conversationId && (
                <Text size="sm" mt="sm">
                  Llegó por una conversación de WhatsApp.{' '}
                  {mayConverse && (
                    <Anchor component={Link} to={`/whatsapp/${r.conversationId}`}>
                      Abrir la conversación
                    </Anchor>
                  )}
                </Text>
              )}
            </Section>

            {personal ? (
              <>
                <Section title="Ciudadano" id="pqrs-citizen">
                  <Citizen request={r} />
                </Section>
                <Section title="Descripción" id="pqrs-description">
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                    {personal.description}
                  </Text>
                </Section>
              </>
            ) : (
              <Alert color="gray" variant="light">
                Los datos del ciudadano, la descripción, la respuesta y los adjuntos solo los ve el equipo que atiende las PQRS.
              </Alert>
            )}

            <AnswerSection request={r} mayHandle={mayHandle} />
            {personal && <Attachments request={r} mayHandle={mayHandle} />}

            <Section title="Historial" id="pqrs-history">
              <History id={r.id} />
            </Section>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Stack gap="md">
            <Extension request={r} mayHandle={mayHandle} />
            {mayHandle && <ManageForm request={r} />}
          </Stack>
        </Grid.Col>
      </Grid>
    </>
  );
}
