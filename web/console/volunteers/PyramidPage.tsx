import { Alert, Anchor, Badge, Button, Group, Progress, Table, Text, VisuallyHidden } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { volunteersPolicy } from '../../../src/modules/volunteers/volunteers.policy';
import { useUrlFilters } from '../app/filters';
import { formatDate, formatNumber, formatPercent, plural } from '../app/format';
import { PageTitle } from '../app/pages';
import { PageLoader } from '../app/PageLoader';
import { SearchForm } from '../app/SearchForm';
import { useSignedIn } from '../app/session';
import { TONES, type Tone } from '../app/tones';
import { TreeToggle, treeIndent } from '../app/TreeToggle';
import { usePyramid } from './data';
import { volunteerProblem } from './labels';
import { buildTree, findNodes, leadersOf, visibleRows } from './pyramid';
import { volunteerPath, type PyramidNode } from './types';

/** At most this many matches open their branches: a search for "a" should not unfold the whole team. */
const MATCHES_OPENED = 50;

const nameOf = (node: PyramidNode) => node.name || 'Persona suprimida';

/** On track (≥ 1), a little behind, or well behind a steady pace to election day. */
function paceTone(pace: number): Tone {
  if (pace >= 1) return 'green';
  if (pace >= 0.75) return 'orange';
  return 'red';
}

function Pace({ pace }: { pace: number | null }) {
  if (pace === null) return <Text size="sm">—</Text>;
  const tone = TONES[paceTone(pace)];
  const words = pace >= 1 ? 'al día' : pace >= 0.75 ? 'algo atrasado' : 'atrasado';
  return (
    <Badge variant="light" color={tone.color} c={tone.text} tt="none">
      {formatPercent(pace * 100)} · {words}
    </Badge>
  );
}

function GoalProgress({ node }: { node: PyramidNode }) {
  if (node.goalProgress === null) return <Text size="sm">Sin meta</Text>;
  return (
    <Group gap={6} wrap="nowrap">
      <Progress value={Math.min(100, node.goalProgress * 100)} w={70} aria-hidden />
      <Text size="sm">{formatPercent(node.goalProgress * 100)}</Text>
    </Group>
  );
}

/** `/voluntarios/piramide`: the leader pyramid as a tree, each branch with its people, votes and pace. */
export default function PyramidPage() {
  const { user } = useSignedIn();
  const profiles = volunteersPolicy.allows(user, 'read');
  const pyramid = usePyramid();
  const filters = useUrlFilters(['buscar'] as const);
  const search = filters.values.buscar ?? '';
  const tree = useMemo(() => (pyramid.data ? buildTree(pyramid.data.nodes) : null), [pyramid.data]);
  const matches = useMemo(() => (tree && search ? findNodes(tree, search) : []), [tree, search]);
  const [open, setOpen] = useState<ReadonlySet<string> | null>(null);

  // First sight: the tops open, so the first two levels show; a search opens the branches down to its matches.
  const shown = useMemo(() => {
    if (!tree) return new Set<string>();
    const base = new Set(open ?? tree.roots.map((root) => root.id));
    for (const match of matches.slice(0, MATCHES_OPENED)) for (const leader of leadersOf(tree, match.id)) base.add(leader);
    return base;
  }, [tree, open, matches]);
  const matched = useMemo(() => new Set(matches.map((match) => match.id)), [matches]);

  // The first match gets the focus, so the keyboard is where the eye goes.
  const first = matches[0]?.id;
  useEffect(() => {
    if (!first) return;
    const button = document.querySelector<HTMLElement>(`[data-volunteer="${first}"] button, [data-volunteer="${first}"] a`);
    button?.scrollIntoView({ block: 'center' });
    button?.focus();
  }, [first, search]);

  if (pyramid.isPending) return <PageLoader />;
  if (pyramid.isError)
    return (
      <>
        <PageTitle>Pirámide de líderes</PageTitle>
        <Alert color="red" role="alert">
          {volunteerProblem(pyramid.error)}
        </Alert>
      </>
    );
  const { nodes, electionDate } = pyramid.data;
  const rows = visibleRows(tree!, shown);
  const toggle = (id: string) => {
    const next = new Set(shown);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
    if (search) filters.set({ buscar: undefined }, { replace: true });
  };
  const levels = nodes.reduce((deepest, node) => Math.max(deepest, node.level + 1), 0);

  return (
    <>
      <PageTitle>Pirámide de líderes</PageTitle>
      <Text size="sm" c="dimmed" mb="md">
        {plural(nodes.length, 'voluntario', 'voluntarios')} en {plural(levels, 'nivel', 'niveles')}. Cada fila cuenta a la persona y a todos los que están debajo de ella: «votos
        amarrados» son los votantes confirmados que trae su rama; el avance los compara con su meta y el ritmo con lo que un paso parejo
        {electionDate ? ` hasta el ${formatDate(electionDate)}` : ' hasta el día de la elección (sin fecha configurada: sin ritmo)'} habría logrado hoy.
      </Text>
      <Group align="flex-end" justify="space-between" mb="sm">
        <div style={{ flex: '1 1 320px', maxWidth: 480 }}>
          <SearchForm name="Buscar en la pirámide" placeholder="Nombre" value={search} onSearch={(value) => filters.set({ buscar: value })} />
        </div>
        <Group gap="xs">
          <Button variant="default" onClick={() => setOpen(new Set(nodes.filter((node) => node.direct > 0).map((node) => node.id)))}>
            Abrir todo
          </Button>
          <Button variant="default" onClick={() => (setOpen(new Set()), filters.set({ buscar: undefined }, { replace: true }))}>
            Cerrar todo
          </Button>
        </Group>
      </Group>
      <Text size="sm" role="status" aria-live="polite" mb="xs">
        {search
          ? matches.length
            ? `${plural(matches.length, 'coincidencia', 'coincidencias')} con «${search}»${matches.length > MATCHES_OPENED ? `: se abren las ramas de las primeras ${MATCHES_OPENED}` : ''}.`
            : `Nadie en la pirámide se llama «${search}».`
          : ''}
      </Text>
      {nodes.length === 0 ? (
        <Text c="dimmed">Aún no hay voluntarios.</Text>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table verticalSpacing={4} highlightOnHover>
            <Table.Caption>
              <VisuallyHidden>Pirámide de líderes: abra una rama con el botón de su nombre</VisuallyHidden>
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Líder o voluntario</Table.Th>
                <Table.Th ta="right">Personas</Table.Th>
                <Table.Th ta="right">Activas</Table.Th>
                <Table.Th ta="right">Meta de votos</Table.Th>
                <Table.Th ta="right">Votos amarrados</Table.Th>
                <Table.Th>Avance</Table.Th>
                <Table.Th>Ritmo</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map(({ node, depth }) => (
                <Table.Tr key={node.id} data-volunteer={node.id} bg={matched.has(node.id) ? 'var(--mantine-color-yellow-light)' : undefined}>
                  <Table.Td pl={treeIndent(depth)}>
                    <Group gap={8} wrap="nowrap">
                      <TreeToggle open={shown.has(node.id)} onToggle={() => toggle(node.id)} expandable={node.direct > 0}>
                        {nameOf(node)}
                      </TreeToggle>
                      {profiles && node.name && (
                        <Anchor component={Link} to={volunteerPath(node.id)} size="xs" aria-label={`Ficha de ${node.name}`}>
                          ficha
                        </Anchor>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">
                    {formatNumber(node.people)}
                    {node.direct > 0 && (
                      <Text span size="xs" c="dimmed">
                        {' '}
                        ({formatNumber(node.direct)} directas)
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td ta="right">{node.activeShare === null ? '—' : formatPercent(node.activeShare * 100)}</Table.Td>
                  <Table.Td ta="right">{formatNumber(node.promisedVotes)}</Table.Td>
                  <Table.Td ta="right">
                    {formatNumber(node.estimatedVotes)}
                    {node.voted > 0 && (
                      <Text span size="xs" c="dimmed">
                        {' '}
                        ({formatNumber(node.voted)} votaron)
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <GoalProgress node={node} />
                  </Table.Td>
                  <Table.Td>
                    <Pace pace={node.pace} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
