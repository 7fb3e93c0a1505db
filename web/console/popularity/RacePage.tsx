import { Alert, Anchor, Card, Group, Loader, Progress, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { api } from '../app/api';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { SectionTabs } from '../app/SectionTabs';
import { COMPONENT_LABELS, DASHBOARD_PATH, formatPoints, formatSigned, SECTIONS, type PopularityDashboard } from './data';

const AverageChart = lazy(() => import('./AverageChart').then((module) => ({ default: module.AverageChart })));

/** The race: the poll average with its band and the house effects, our lead over the first rival, and the composite score with its parts. */
export default function RacePage() {
  const dashboard = useQuery({ queryKey: ['popularity', 'dashboard'], queryFn: () => api.get<PopularityDashboard>(DASHBOARD_PATH) });
  return (
    <>
      <PageTitle>Popularidad</PageTitle>
      <SectionTabs label="Secciones de popularidad" sections={SECTIONS} />
      {dashboard.isPending && <Loader size="sm" aria-label="Cargando" />}
      {dashboard.isError && (
        <Alert color="red" role="alert">
          {problemMessage(dashboard.error)}
        </Alert>
      )}
      {dashboard.data && <Race dashboard={dashboard.data} />}
    </>
  );
}

function Race({ dashboard }: { dashboard: PopularityDashboard }) {
  const nameOf = new Map(dashboard.pollAverage.averages.map((row) => [row.competitorId, row.name]));
  for (const row of dashboard.scores) nameOf.set(row.competitorId, row.name);
  const confidence = `${formatPoints(dashboard.pollAverage.confidence * 100)} %`;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder component="section" aria-labelledby="promedio">
          <Title order={2} size="h4" id="promedio" mb="xs">
            Promedio de encuestas
          </Title>
          {dashboard.pollAverage.averages.length === 0 ? (
            <Text c="dimmed">
              Aún no hay encuestas de los últimos 120 días.{' '}
              <Anchor component={Link} to="/popularidad/encuestas">
                Registre las publicadas
              </Anchor>{' '}
              para ver el promedio.
            </Text>
          ) : (
            <Table>
              <Table.Caption>
                {dashboard.pollAverage.polls === 1 ? 'Una encuesta' : `${dashboard.pollAverage.polls} encuestas`}, ponderadas por muestra, antigüedad (vida media de{' '}
                {dashboard.pollAverage.halfLifeDays} días) y cumplimiento; banda al {confidence}
              </Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Candidato</Table.Th>
                  <Table.Th ta="right">Promedio</Table.Th>
                  <Table.Th ta="right">Banda</Table.Th>
                  <Table.Th ta="right">Cambio en 14 días</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {dashboard.pollAverage.averages.map((row) => (
                  <Table.Tr key={row.competitorId}>
                    <Table.Td fw={row.isOwn ? 700 : undefined}>{row.name}</Table.Td>
                    <Table.Td ta="right">{formatPoints(row.average)} %</Table.Td>
                    <Table.Td ta="right">
                      {formatPoints(row.low)} – {formatPoints(row.high)}
                    </Table.Td>
                    <Table.Td ta="right">{row.change14d === null ? '—' : formatSigned(row.change14d)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Card>
        <LeadCard lead={dashboard.lead} nameOf={nameOf} confidence={confidence} />
      </SimpleGrid>
      {dashboard.pollAverage.averages.length > 0 && (
        <Card withBorder component="section" aria-labelledby="tendencia">
          <Title order={2} size="h4" id="tendencia" mb="xs">
            Tendencia del promedio (30 días)
          </Title>
          <Suspense fallback={<Loader size="sm" aria-label="Cargando el gráfico" />}>
            <AverageChart pollAverage={dashboard.pollAverage} />
          </Suspense>
        </Card>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <HouseEffects dashboard={dashboard} nameOf={nameOf} />
        <Scores dashboard={dashboard} />
      </SimpleGrid>
    </Stack>
  );
}

/** Our lead over the first rival as a point inside its band, on a scale centred on a tie. */
function LeadCard({ lead, nameOf, confidence }: { lead: PopularityDashboard['lead']; nameOf: Map<string, string>; confidence: string }) {
  const rival = lead ? (nameOf.get(lead.rivalId) ?? 'el primer rival') : '';
  const reach = lead ? Math.max(5, Math.ceil(Math.max(Math.abs(lead.low), Math.abs(lead.high)) / 5) * 5) : 5;
  const at = (value: number) => `${((value + reach) / (2 * reach)) * 100}%`;
  return (
    <Card withBorder component="section" aria-labelledby="ventaja">
      <Title order={2} size="h4" id="ventaja" mb="xs">
        Ventaja sobre el primer rival
      </Title>
      {!lead ? (
        <Text c="dimmed">Hace falta al menos una encuesta que mida a nuestra candidatura y a su primer rival.</Text>
      ) : (
        <>
          <Text size="xl" fw={700}>
            {lead.lead >= 0 ? `${formatSigned(lead.lead)} puntos sobre ${rival}` : `${formatPoints(-lead.lead)} puntos detrás de ${rival}`}
          </Text>
          <Text size="sm" mb="sm">
            Banda al {confidence}: de {formatSigned(lead.low)} a {formatSigned(lead.high)} puntos
            {lead.low > 0 ? ' (adelante aun en el peor caso)' : lead.high < 0 ? ' (atrás aun en el mejor caso)' : ' (la banda incluye el empate)'};{' '}
            {lead.polls === 1 ? 'una encuesta' : `${lead.polls} encuestas`} con ambos.
          </Text>
          <svg width="100%" height="44" role="img" aria-label={`Ventaja ${formatSigned(lead.lead)}, banda de ${formatSigned(lead.low)} a ${formatSigned(lead.high)} puntos`}>
            <line x1="0" x2="100%" y1="18" y2="18" stroke="#adb5bd" />
            <rect x={at(lead.low)} width={`${((lead.high - lead.low) / (2 * reach)) * 100}%`} y="8" height="20" fill="#1864ab33" stroke="#1864ab" />
            <line x1="50%" x2="50%" y1="2" y2="34" stroke="#40464d" strokeDasharray="3 2" />
            <circle cx={at(lead.lead)} cy="18" r="5" fill="#1864ab" />
            <text x="0" y="42" fontSize="11" fill="#40464d">
              {formatSigned(-reach)}
            </text>
            <text x="50%" y="42" fontSize="11" fill="#40464d" textAnchor="middle">
              empate
            </text>
            <text x="100%" y="42" fontSize="11" fill="#40464d" textAnchor="end">
              {formatSigned(reach)}
            </text>
          </svg>
        </>
      )}
    </Card>
  );
}

function HouseEffects({ dashboard, nameOf }: { dashboard: PopularityDashboard; nameOf: Map<string, string> }) {
  const effects = dashboard.pollAverage.houseEffects;
  return (
    <Card withBorder component="section" aria-labelledby="efectos">
      <Title order={2} size="h4" id="efectos" mb="xs">
        Efectos de casa
      </Title>
      {effects.length === 0 ? (
        <Text c="dimmed" size="sm">
          Ninguna encuestadora tiene aún tres encuestas en la ventana junto a las de otras: no hay efecto de casa que corregir.
        </Text>
      ) : (
        <Table>
          <Table.Caption>Cuánto se aparta cada encuestadora del resto, por candidato; el promedio lo descuenta</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Encuestadora</Table.Th>
              <Table.Th>Candidato</Table.Th>
              <Table.Th ta="right">Efecto (puntos)</Table.Th>
              <Table.Th ta="right">Encuestas</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {effects.map((effect) => (
              <Table.Tr key={`${effect.pollster}|${effect.competitorId}`}>
                <Table.Td>{effect.pollster}</Table.Td>
                <Table.Td>{nameOf.get(effect.competitorId) ?? '—'}</Table.Td>
                <Table.Td ta="right">{formatSigned(effect.effect)}</Table.Td>
                <Table.Td ta="right">{effect.polls}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}

const COMPONENT_COLOURS: Record<string, string> = { pollAverage: '#1864ab', favourabilityNet: '#2b8a3e', engagementShare: '#e67700', sentiment: '#5f3dc4', momentum: '#0b7285' };

/** The composite score per competitor, each part shown: its raw value, its 0–100 value, its weight and what it adds. */
function Scores({ dashboard }: { dashboard: PopularityDashboard }) {
  return (
    <Card withBorder component="section" aria-labelledby="puntaje">
      <Title order={2} size="h4" id="puntaje" mb="xs">
        Puntaje compuesto
      </Title>
      <Stack gap="md">
        {dashboard.scores.map((row) => (
          <div key={row.competitorId}>
            <Group justify="space-between" mb={4}>
              <Text fw={row.isOwn ? 700 : 500}>{row.name}</Text>
              <Text fw={700}>{row.score === null ? 'Sin datos' : `${formatPoints(row.score)} / 100`}</Text>
            </Group>
            <Progress.Root size="lg" aria-hidden="true">
              {row.components
                .filter((component) => component.contribution)
                .map((component) => (
                  <Progress.Section key={component.component} value={component.contribution!} color={COMPONENT_COLOURS[component.component] ?? 'gray'} />
                ))}
            </Progress.Root>
            <Table fz="sm" mt={4}>
              <Table.Caption>Partes del puntaje de {row.name}</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Parte</Table.Th>
                  <Table.Th ta="right">Dato</Table.Th>
                  <Table.Th ta="right">Sobre 100</Table.Th>
                  <Table.Th ta="right">Peso</Table.Th>
                  <Table.Th ta="right">Aporta</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {row.components.map((component) => (
                  <Table.Tr key={component.component}>
                    <Table.Td>
                      <span
                        aria-hidden="true"
                        style={{ display: 'inline-block', width: 10, height: 10, marginRight: 6, background: COMPONENT_COLOURS[component.component] ?? 'gray' }}
                      />
                      {COMPONENT_LABELS[component.component] ?? component.component}
                    </Table.Td>
                    <Table.Td ta="right">{component.raw === null ? 'sin dato' : formatPoints(component.raw)}</Table.Td>
                    <Table.Td ta="right">{component.normalised === null ? '—' : formatPoints(component.normalised)}</Table.Td>
                    <Table.Td ta="right">{formatPoints(component.weight * 100)} %</Table.Td>
                    <Table.Td ta="right">{component.contribution === null ? '—' : formatPoints(component.contribution)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        ))}
      </Stack>
    </Card>
  );
}
