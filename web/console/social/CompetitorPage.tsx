import { Alert, Anchor, Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { socialPolicy } from '../../../src/modules/social/social.policy';
import { api } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { formatDateTime, formatNumber, formatRelative, plural } from '../app/format';
import { PageLoader } from '../app/PageLoader';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { AddProfileDialog, EditCompetitorDialog, EditProfileDialog } from './CompetitorForms';
import { Swatch } from './CompetitorsPage';
import { API, COMPETITORS, PLATFORM_LABELS, PROFILE_STATUS, refreshCompetitors, SOCIAL, type Competitor, type Profile } from './data';

/** What "fetch now" refusals say, in Spanish. */
const FETCH_PROBLEMS = {
  import_only: 'Este perfil se alimenta por importación: no hay API que consultar.',
  not_configured: 'El conector de esta red no tiene credenciales.',
  fetch_in_progress: 'Este perfil se está consultando en este momento. Intente en un momento.',
  upstream_failed: (problem: { detail?: string }) => `La red rechazó la consulta: ${problem.detail ?? 'sin detalle'}. Quedó anotado en el perfil.`,
};

interface FetchAnswer {
  outcome: { status: 'fetched'; posts: number; created: number } | { status: 'waiting'; reason: string; until: string } | { status: 'gone' | 'skipped' };
  profile: Profile;
}

function fetchMessage(outcome: FetchAnswer['outcome']): string {
  if (outcome.status === 'fetched') return `Se leyó: ${plural(outcome.posts, 'publicación', 'publicaciones')}, ${plural(outcome.created, 'nueva', 'nuevas')}.`;
  if (outcome.status === 'waiting') return `La red pide esperar hasta ${formatDateTime(outcome.until)}: ${outcome.reason}`;
  return 'El perfil ya no existe o no se consultó.';
}

/** The connector's health in words, with why it stopped when it did. */
function ProfileStatus({ profile }: { profile: Profile }) {
  const status = PROFILE_STATUS[profile.status];
  return (
    <Stack gap={2}>
      <Badge variant="light" color={TONES[status.tone].color} tt="none" styles={{ label: { color: TONES[status.tone].text } }}>
        {status.label}
      </Badge>
      {profile.status === 'paused' && profile.pausedReason && <Text size="xs">Motivo: {profile.pausedReason}</Text>}
      {profile.status === 'failing' && profile.lastError && <Text size="xs">Último error: {profile.lastError}</Text>}
      {profile.status === 'not_configured' && <Text size="xs">Faltan las credenciales de la red en la configuración del servidor.</Text>}
    </Stack>
  );
}

type Act = { kind: 'edit' } | { kind: 'add' } | { kind: 'editProfile'; profile: Profile } | { kind: 'remove'; profile: Profile } | null;

/** `/redes/competidores/:id`: a competitor and its profiles — edit, add, remove, and read one now. */
export default function CompetitorPage() {
  const { id = '' } = useParams();
  const { user } = useSignedIn();
  const manage = socialPolicy.allows(user, 'manage');
  const competitor = useQuery({ queryKey: ['social', 'competitor', id], queryFn: () => api.get<Competitor>(`${COMPETITORS}/${id}`) });
  const [act, setAct] = useState<Act>(null);
  const [fetching, setFetching] = useState<string | null>(null);
  const close = () => setAct(null);

  const fetchNow = async (profile: Profile) => {
    setFetching(profile.id);
    try {
      const answer = await api.post<FetchAnswer>(`${API}/profiles/${profile.id}/fetch`, {});
      notifications.show({
        color: answer.outcome.status === 'fetched' ? 'green' : 'yellow',
        title: `${PLATFORM_LABELS[profile.platform]} ${profile.handle}`,
        message: fetchMessage(answer.outcome),
      });
    } catch (error) {
      notifications.show({ color: 'red', title: 'No se pudo consultar', message: problemMessage(error, FETCH_PROBLEMS) });
    } finally {
      setFetching(null);
      await refreshCompetitors();
    }
  };

  if (competitor.isPending) return <PageLoader />;
  if (competitor.isError)
    return (
      <Alert color="red" role="alert">
        {problemMessage(competitor.error)}
      </Alert>
    );
  const data = competitor.data;
  return (
    <>
      <PageTitle
        actions={
          manage && (
            <Group>
              <Button variant="default" onClick={() => setAct({ kind: 'edit' })}>
                Editar competidor
              </Button>
              <Button onClick={() => setAct({ kind: 'add' })}>Agregar perfil</Button>
            </Group>
          )
        }
      >
        {data.name}
      </PageTitle>
      <Stack gap="md">
        <Group gap="xs">
          <Swatch colour={data.colour} />
          <Text size="sm">{[data.party, data.isOwn ? 'nuestro candidato' : null, data.active ? null : 'inactivo'].filter(Boolean).join(' · ') || 'Sin partido registrado'}</Text>
          <Anchor component={Link} to={`${SOCIAL}/publicaciones?competidor=${data.id}`} size="sm">
            Ver sus publicaciones
          </Anchor>
        </Group>
        {data.notes && <Text size="sm">{data.notes}</Text>}
        <Title order={2} size="h4">
          Perfiles
        </Title>
        {data.profiles.length === 0 ? (
          <Text c="dimmed">Aún no tiene perfiles. Agréguelos para seguir sus publicaciones.</Text>
        ) : (
          <Table.ScrollContainer minWidth={700}>
            <Table verticalSpacing="xs" striped>
              <Table.Caption>Perfiles de {data.name} y el estado de su conector</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Red</Table.Th>
                  <Table.Th>Usuario</Table.Th>
                  <Table.Th ta="right">Seguidores</Table.Th>
                  <Table.Th>Conector</Table.Th>
                  <Table.Th>Última consulta</Table.Th>
                  {manage && <Table.Th>Acciones</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.profiles.map((profile) => (
                  <Table.Tr key={profile.id} data-profile={profile.id}>
                    <Table.Td>{PLATFORM_LABELS[profile.platform]}</Table.Td>
                    <Table.Td>
                      {profile.url ? (
                        <Anchor href={profile.url} target="_blank" rel="noopener noreferrer">
                          {profile.handle}
                        </Anchor>
                      ) : (
                        profile.handle
                      )}
                      {profile.displayName && (
                        <Text size="xs" c="dimmed">
                          {profile.displayName}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td ta="right">{profile.followers === null ? '—' : formatNumber(profile.followers)}</Table.Td>
                    <Table.Td>
                      <ProfileStatus profile={profile} />
                    </Table.Td>
                    <Table.Td>
                      {profile.lastFetchedAt ? (
                        <time dateTime={profile.lastFetchedAt} title={formatDateTime(profile.lastFetchedAt)}>
                          {formatRelative(profile.lastFetchedAt)}
                        </time>
                      ) : (
                        'Nunca'
                      )}
                      {profile.nextFetchAt && profile.status !== 'paused' && profile.status !== 'not_configured' && (
                        <Text size="xs" c="dimmed" title={formatDateTime(profile.nextFetchAt)}>
                          Próxima: {formatRelative(profile.nextFetchAt)}
                        </Text>
                      )}
                    </Table.Td>
                    {manage && (
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() => setAct({ kind: 'editProfile', profile })}
                            aria-label={`Editar perfil de ${PLATFORM_LABELS[profile.platform]} ${profile.handle}`}
                          >
                            Editar
                          </Button>
                          {profile.source === 'api' && profile.status !== 'not_configured' && profile.status !== 'import_only' && (
                            <Button
                              size="xs"
                              variant="default"
                              loading={fetching === profile.id}
                              onClick={() => void fetchNow(profile)}
                              aria-label={`Consultar ahora ${PLATFORM_LABELS[profile.platform]} ${profile.handle}`}
                            >
                              Consultar ahora
                            </Button>
                          )}
                          <Button
                            size="xs"
                            variant="subtle"
                            color="red"
                            onClick={() => setAct({ kind: 'remove', profile })}
                            aria-label={`Quitar ${PLATFORM_LABELS[profile.platform]} ${profile.handle}`}
                          >
                            Quitar
                          </Button>
                        </Group>
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      {act?.kind === 'edit' && <EditCompetitorDialog competitor={data} onClose={close} />}
      {act?.kind === 'add' && <AddProfileDialog competitor={data} onClose={close} />}
      {act?.kind === 'editProfile' && <EditProfileDialog competitor={data} profile={act.profile} onClose={close} />}
      <ConfirmDialog
        opened={act?.kind === 'remove'}
        onClose={close}
        title="Dejar de seguir el perfil"
        confirmLabel="Dejar de seguir"
        danger
        onConfirm={async () => {
          if (act?.kind !== 'remove') return;
          await api.delete(`${COMPETITORS}/${data.id}/profiles/${act.profile.id}`);
          notifications.show({ color: 'green', message: `Se dejó de seguir ${PLATFORM_LABELS[act.profile.platform]} ${act.profile.handle}.` });
          await refreshCompetitors();
        }}
      >
        <Text>Sus publicaciones se conservan, atribuidas a {data.name}; su historia de seguidores se borra.</Text>
      </ConfirmDialog>
    </>
  );
}
