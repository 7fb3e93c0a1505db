import { Anchor, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { socialPolicy } from '../../../src/modules/social/social.policy';
import { queryString, useUrlFilters } from '../app/filters';
import { PageTitle } from '../app/pages';
import { ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { EditCompetitorDialog, NewCompetitorDialog } from './CompetitorForms';
import { COMPETITORS, PLATFORM_LABELS, PROFILE_STATUS, SOCIAL, type Competitor } from './data';

/** A competitor's colour as a small swatch beside its name (the name says who it is; the colour is decoration). */
export function Swatch({ colour }: { colour: string | null }) {
  return <span aria-hidden style={{ display: 'inline-block', width: 12, height: 12, borderRadius: 3, background: colour ?? 'var(--mantine-color-gray-4)', marginRight: 6 }} />;
}

/** `/redes/competidores`: whom the campaign watches (ours included), with each profile's connector health. */
export default function CompetitorsPage() {
  const { user } = useSignedIn();
  const manage = socialPolicy.allows(user, 'manage');
  const navigate = useNavigate();
  const filters = useUrlFilters(['inactivos'] as const);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Competitor | null>(null);

  const columns: Column<Competitor>[] = [
    {
      key: 'name',
      header: 'Nombre',
      render: (competitor) => (
        <Group gap={4} wrap="nowrap">
          <Swatch colour={competitor.colour} />
          <Anchor component={Link} to={`${SOCIAL}/competidores/${competitor.id}`} fw={500}>
            {competitor.name}
          </Anchor>
          {competitor.isOwn && (
            <Badge size="sm" variant="outline" tt="none">
              Nuestro
            </Badge>
          )}
          {!competitor.active && (
            <Badge size="sm" variant="outline" color="gray" tt="none" styles={{ label: { color: TONES.gray.text } }}>
              Inactivo
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'party', header: 'Partido', render: (competitor) => competitor.party ?? '—' },
    {
      key: 'profiles',
      header: 'Perfiles',
      render: (competitor) =>
        competitor.profiles.length ? (
          <Group gap={4}>
            {competitor.profiles.map((profile) => {
              const status = PROFILE_STATUS[profile.status];
              return (
                <Badge key={profile.id} size="sm" variant="light" color={TONES[status.tone].color} tt="none" styles={{ label: { color: TONES[status.tone].text } }}>
                  {PLATFORM_LABELS[profile.platform]}: {status.label}
                </Badge>
              );
            })}
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            Sin perfiles
          </Text>
        ),
    },
    ...(manage
      ? [
          {
            key: 'actions',
            header: 'Acciones',
            render: (competitor: Competitor) => (
              <Button size="xs" variant="default" onClick={() => setEditing(competitor)} aria-label={`Editar ${competitor.name}`}>
                Editar
              </Button>
            ),
          },
        ]
      : []),
  ];

  return (
    <>
      <PageTitle actions={manage && <Button onClick={() => setAdding(true)}>Agregar competidor</Button>}>Redes sociales: competidores</PageTitle>
      <Stack gap="md">
        <Group>
          <Button variant="subtle" size="xs" onClick={() => filters.set({ inactivos: filters.values.inactivos ? null : 'si' })}>
            {filters.values.inactivos ? 'Ver solo los activos' : 'Ver también los inactivos'}
          </Button>
        </Group>
        <ServerTable
          caption="Competidores"
          path={`${COMPETITORS}${queryString({ active: filters.values.inactivos ? undefined : 'true' })}`}
          columns={columns}
          rowKey={(competitor) => competitor.id}
          empty="Aún no se sigue a ningún competidor."
        />
      </Stack>
      {adding && <NewCompetitorDialog onClose={() => setAdding(false)} onCreated={(created) => navigate(`${SOCIAL}/competidores/${created.id}`)} />}
      {editing && <EditCompetitorDialog competitor={editing} onClose={() => setEditing(null)} />}
    </>
  );
}
