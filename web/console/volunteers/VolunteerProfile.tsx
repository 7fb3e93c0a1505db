import { Alert, Anchor, Button, Card, Grid, Group, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { authPolicy } from '../../../src/modules/auth/auth.policy';
import { volunteersPolicy } from '../../../src/modules/volunteers/volunteers.policy';
import type { Territory } from '../../lib/api-types';
import { roles as ROLE_LABELS } from '../../lib/labels';
import { api, ApiError } from '../app/api';
import { ConfirmDialog } from '../app/ConfirmDialog';
import { formatDate, formatDateTime, formatNumber, formatPercent, formatPhone } from '../app/format';
import { PageTitle } from '../app/pages';
import { PageLoader } from '../app/PageLoader';
import { ServerTable } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { ActivityTable } from './ActivityTable';
import { SLOT_LABELS, SOURCE_OF_VOLUNTEER, skillLabel, STATUS_LABELS, VOLUNTEER_GONE, volunteerProblem, WEEKDAY_LABELS } from './labels';
import { VOLUNTEERS, VOLUNTEERS_API, volunteerPath, type Pyramid, type Volunteer, type VolunteerRow, type Voters } from './types';
import { EditVolunteerDialog, findAccount, LinkAccountDialog, refreshVolunteer } from './VolunteerDialogs';
import { StatusBadge } from './StatusBadge';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="xs" c="dimmed" fw={600}>
        {term}
      </Text>
      <Text component="dd" size="sm" m={0}>
        {children}
      </Text>
    </div>
  );
}

const factGrid = { display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(190px, 1fr))', gap: 'var(--mantine-spacing-sm)', margin: 0 } as const;

function availabilityText(availability: Volunteer['availability']): string {
  const days = Object.entries(availability).filter(([, slots]) => slots.length);
  if (!days.length) return '—';
  return days.map(([day, slots]) => `${WEEKDAY_LABELS[day] ?? day}: ${slots.map((slot) => SLOT_LABELS[slot] ?? slot).join(', ')}`).join(' · ');
}

function Leader({ id }: { id: string }) {
  const leader = useQuery({ queryKey: ['volunteer', id], queryFn: () => api.get<Volunteer>(`${VOLUNTEERS_API}/${id}`) });
  return (
    <Anchor component={Link} to={volunteerPath(id)} inherit>
      {leader.data?.name ?? '…'}
    </Anchor>
  );
}

function TerritoryName({ id }: { id: string }) {
  const territory = useQuery({ queryKey: ['territories', 'one', id], queryFn: () => api.get<Territory>(`/api/territories/${id}`), staleTime: 300_000 });
  return <>{territory.data?.name ?? '…'}</>;
}

function Details({ volunteer }: { volunteer: Volunteer }) {
  return (
    <Card withBorder component="section" aria-label="Datos del voluntario">
      <dl style={factGrid}>
        <Fact term="Estado">
          <StatusBadge status={volunteer.status} />
        </Fact>
        <Fact term="Teléfono">{volunteer.phone ? formatPhone(volunteer.phone) : '—'}</Fact>
        <Fact term="Correo">{volunteer.email ?? '—'}</Fact>
        <Fact term="Cédula">{volunteer.documentId ?? '—'}</Fact>
        <Fact term="Líder">{volunteer.leaderId ? <Leader id={volunteer.leaderId} /> : 'Ninguno (cima de la pirámide)'}</Fact>
        <Fact term="Territorio">{volunteer.territoryId ? <TerritoryName id={volunteer.territoryId} /> : '—'}</Fact>
        <Fact term="Habilidades">{volunteer.skills.length ? volunteer.skills.map(skillLabel).join(', ') : '—'}</Fact>
        <Fact term="Disponibilidad">{availabilityText(volunteer.availability)}</Fact>
        <Fact term="Metas">
          {formatNumber(volunteer.goals.promisedVotes)} votos · {formatNumber(volunteer.goals.leads)} contactos · {formatNumber(volunteer.goals.posters)} afiches
        </Fact>
        <Fact term="Se unió">{formatDate(volunteer.joinedOn)}</Fact>
        <Fact term="Llegó por">{SOURCE_OF_VOLUNTEER[volunteer.source] ?? volunteer.source}</Fact>
        <Fact term="Ubicación GPS de sus actividades">
          {volunteer.locationConsent ? `Autorizada el ${formatDateTime(volunteer.locationConsent.at)}` : 'No autorizada: no se guardan puntos'}
        </Fact>
      </dl>
      <Anchor component={Link} to={`/personas/${volunteer.contactId}`} size="sm" mt="sm" display="inline-block">
        Ver su ficha en Personas (historia, autorizaciones, correcciones)
      </Anchor>
    </Card>
  );
}

/** The volunteer's branch: the people under them and its votes, from the pyramid (`rootId`). */
function Branch({ volunteer }: { volunteer: Volunteer }) {
  const branch = useQuery({ queryKey: ['volunteers', 'pyramid', volunteer.id], queryFn: () => api.get<Pyramid>(`${VOLUNTEERS_API}/pyramid?rootId=${volunteer.id}`) });
  const voters = useQuery({ queryKey: ['volunteers', 'voters', volunteer.id], queryFn: () => api.get<Voters>(`${VOLUNTEERS_API}/${volunteer.id}/voters`) });
  const node = branch.data?.nodes.find((item) => item.id === volunteer.id);
  return (
    <Card withBorder component="section" aria-labelledby="rama">
      <Title order={2} size="h4" id="rama" mb="sm">
        Su rama de la pirámide
      </Title>
      {branch.isError && <Alert color="red">{volunteerProblem(branch.error)}</Alert>}
      {node && (
        <dl style={factGrid}>
          <Fact term="Personas debajo">
            {formatNumber(node.people)} ({formatNumber(node.direct)} directas)
          </Fact>
          <Fact term="Activas">{node.activeShare === null ? '—' : formatPercent(node.activeShare * 100)}</Fact>
          <Fact term="Votos amarrados de la rama">
            {formatNumber(node.estimatedVotes)}
            {node.voted ? ` (${formatNumber(node.voted)} votaron)` : ''}
          </Fact>
          <Fact term="Los que trae él o ella">{voters.data ? formatNumber(voters.data.total) : '…'}</Fact>
          <Fact term="Avance de la meta">{node.goalProgress === null ? 'Sin meta' : formatPercent(node.goalProgress * 100)}</Fact>
          <Fact term="Ritmo">{node.pace === null ? '—' : formatPercent(node.pace * 100)}</Fact>
        </dl>
      )}
      <Anchor component={Link} to={`${VOLUNTEERS}/piramide?buscar=${encodeURIComponent(volunteer.name)}`} size="sm" mt="sm" display="inline-block">
        Verla en la pirámide
      </Anchor>
    </Card>
  );
}

/** The login account linked to the volunteer: linked or unlinked by an admin (the only role that reads accounts). */
function Account({ volunteer, onLink, onUnlink }: { volunteer: Volunteer; onLink: () => void; onUnlink: () => void }) {
  const { user } = useSignedIn();
  const admin = authPolicy.allows(user, 'manageUsers');
  const manage = volunteersPolicy.allows(user, 'manage');
  const account = useQuery({
    queryKey: ['users', 'account', volunteer.userId],
    queryFn: () => findAccount(volunteer.userId!),
    enabled: admin && volunteer.userId !== null,
  });
  return (
    <Card withBorder component="section" aria-labelledby="cuenta">
      <Title order={2} size="h4" id="cuenta" mb="sm">
        Cuenta de usuario
      </Title>
      {volunteer.userId ? (
        <Text size="sm">
          Vinculada
          {account.data ? `: ${account.data.name} · ${account.data.email} (${ROLE_LABELS[account.data.role]})` : ''}. Registra su trabajo y el de su equipo desde la app de brigada.
        </Text>
      ) : (
        <Text size="sm">Sin cuenta: su trabajo lo registra el equipo de coordinación.</Text>
      )}
      {admin && manage ? (
        <Group mt="sm">
          {volunteer.userId ? (
            <Button size="xs" variant="default" color="red" onClick={onUnlink}>
              Desvincular la cuenta
            </Button>
          ) : (
            <Button size="xs" variant="default" onClick={onLink}>
              Vincular una cuenta
            </Button>
          )}
        </Group>
      ) : (
        <Text size="xs" c="dimmed" mt="xs">
          La administración vincula las cuentas (es quien las ve).
        </Text>
      )}
    </Card>
  );
}

/** `/voluntarios/:id`: who the volunteer is, their leader and territory, their branch's figures, their account, their team and their activities. */
export default function VolunteerProfile() {
  const { id = '' } = useParams();
  const { user } = useSignedIn();
  const valid = UUID.test(id);
  const manage = volunteersPolicy.allows(user, 'manage');
  const [acting, setActing] = useState<'edit' | 'link' | 'unlink' | null>(null);
  const volunteer = useQuery({ queryKey: ['volunteer', id], queryFn: () => api.get<Volunteer>(`${VOLUNTEERS_API}/${id}`), enabled: valid });

  if (!valid || volunteer.isError) {
    const gone = !valid || (volunteer.error instanceof ApiError && volunteer.error.status === 404);
    return (
      <>
        <PageTitle>{gone ? 'Voluntario no encontrado' : 'Voluntario'}</PageTitle>
        <Alert color={gone ? 'yellow' : 'red'} role="alert" mb="md">
          {gone ? VOLUNTEER_GONE : volunteerProblem(volunteer.error)}
        </Alert>
        <Button component={Link} to={VOLUNTEERS}>
          Volver a Voluntarios
        </Button>
      </>
    );
  }
  if (volunteer.isPending) return <PageLoader />;
  const data = volunteer.data;

  return (
    <>
      <PageTitle
        actions={
          <Group>
            <Button component={Link} to={VOLUNTEERS} variant="default">
              Volver a Voluntarios
            </Button>
            {manage && <Button onClick={() => setActing('edit')}>Editar</Button>}
          </Group>
        }
      >
        {data.name}
      </PageTitle>
      <Stack gap="md">
        <Details volunteer={data} />
        <Grid gap="md">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Branch volunteer={data} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Account volunteer={data} onLink={() => setActing('link')} onUnlink={() => setActing('unlink')} />
          </Grid.Col>
        </Grid>
        <section aria-labelledby="equipo">
          <Title order={2} size="h4" id="equipo" mb="sm">
            Su equipo directo
          </Title>
          <ServerTable<VolunteerRow>
            caption={`Personas que lidera ${data.name}`}
            path={`${VOLUNTEERS_API}?leaderId=${data.id}`}
            columns={[
              {
                key: 'name',
                header: 'Voluntario',
                render: (row) => (
                  <Anchor component={Link} to={volunteerPath(row.id)}>
                    {row.name}
                  </Anchor>
                ),
              },
              { key: 'status', header: 'Estado', render: (row) => STATUS_LABELS[row.status] },
              { key: 'activity', header: 'Actividades recientes', numeric: true, render: (row) => formatNumber(row.activityCount) },
            ]}
            rowKey={(row) => row.id}
            pageSizes={[10, 25, 50]}
            describeError={volunteerProblem}
            empty="No lidera a nadie."
          />
        </section>
        <section aria-labelledby="actividades">
          <Title order={2} size="h4" id="actividades" mb="sm">
            Actividades
          </Title>
          <ActivityTable caption={`Actividades de ${data.name}`} path={`${VOLUNTEERS_API}/activities?volunteerId=${data.id}`} empty="Aún no registra actividades." />
        </section>
      </Stack>
      {acting === 'edit' && <EditVolunteerDialog volunteer={data} onClose={() => setActing(null)} />}
      {acting === 'link' && <LinkAccountDialog volunteer={data} onClose={() => setActing(null)} />}
      <ConfirmDialog
        opened={acting === 'unlink'}
        onClose={() => setActing(null)}
        title="Desvincular la cuenta"
        confirmLabel="Desvincular"
        danger
        describeError={volunteerProblem}
        onConfirm={async () => {
          await api.patch(`${VOLUNTEERS_API}/${data.id}`, { userId: null });
          notifications.show({ color: 'green', message: `${data.name} ya no tiene una cuenta vinculada.` });
          await refreshVolunteer(data.id);
        }}
      >
        <Text>{data.name} deja de registrar trabajo con esa cuenta; la cuenta sigue existiendo y lo ya registrado se conserva. Puede vincularla de nuevo cuando quiera.</Text>
      </ConfirmDialog>
    </>
  );
}
