import { Alert, Card, Group, Progress, SegmentedControl, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { z } from 'zod';
import type { ComparisonMetric, comparisonView, dashboardView } from '../../../src/modules/social/social.schemas';
import { api } from '../app/api';
import { queryString, useUrlFilters } from '../app/filters';
import { formatNumber, localToday, plural } from '../app/format';
import { LineChart, type LineSeries } from '../app/LineChart';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { API, PLATFORM_OPTIONS } from './data';

type Comparison = z.output<typeof comparisonView>;
type Dashboard = z.output<typeof dashboardView>;

const decimals = new Intl.NumberFormat('es-CO', { maximumFractionDigits: 2 });
const percent = (value: number) => `${decimals.format(value)} %`;

const METRICS: Record<ComparisonMetric, { label: string; format: (value: number) => string }> = {
  followers: { label: 'Seguidores', format: formatNumber },
  posts: { label: 'Publicaciones', format: formatNumber },
  engagement: { label: 'Interacción', format: formatNumber },
  engagementRate: { label: 'Tasa de interacción', format: percent },
  sentiment: { label: 'Sentimiento neto', format: (value) => decimals.format(value) },
  shareOfVoice: { label: 'Participación de voz', format: percent },
};

const INTERVALS = { day: 'Por día', week: 'Por semana' } as const;
/** Lines of competitors without a colour of their own, told apart (and dark enough on white). */
const PALETTE = ['#1864ab', '#c92a2a', '#2b8a3e', '#e67700', '#5f3dc4', '#0b7285', '#a61e4d', '#495057'];

/** The local day `days` before `day` (both `YYYY-MM-DD`). */
function daysBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T12:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/** One metric over days or weeks, one line per competitor, with the summary the API ranks. */
function MetricChart({ comparison }: { comparison: Comparison }) {
  const metric = METRICS[comparison.metric];
  const series = useMemo(
    () =>
      comparison.series.map((entry, index): LineSeries => ({
        key: entry.competitorId,
        label: entry.isOwn ? `${entry.name} (nosotros)` : entry.name,
        colour: entry.colour ?? PALETTE[index % PALETTE.length]!,
        values: entry.values,
        scale: 'value',
        format: metric.format,
        emphasis: entry.isOwn,
      })),
    [comparison, metric],
  );
  if (!series.length) return <Text c="dimmed">No hay competidores activos que comparar.</Text>;
  return (
    <Stack gap="sm">
      <LineChart
        buckets={comparison.buckets}
        interval={comparison.interval}
        series={series}
        label={`${metric.label} por ${comparison.interval === 'day' ? 'día' : 'semana'}, por competidor`}
      />
      <Table.ScrollContainer minWidth={500}>
        <Table fz="sm" striped>
          <Table.Caption>Resumen: {metric.label.toLowerCase()} al final del periodo y su cambio</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Puesto</Table.Th>
              <Table.Th>Competidor</Table.Th>
              <Table.Th ta="right">Último valor</Table.Th>
              <Table.Th ta="right">Cambio</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {[...comparison.summary]
              .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity))
              .map((row) => (
                <Table.Tr key={row.competitorId}>
                  <Table.Td>{row.rank ?? '—'}</Table.Td>
                  <Table.Td fw={row.isOwn ? 600 : undefined}>{row.isOwn ? `${row.name} (nosotros)` : row.name}</Table.Td>
                  <Table.Td ta="right">{row.latest === null ? '—' : metric.format(row.latest)}</Table.Td>
                  <Table.Td ta="right">
                    {row.change === null
                      ? '—'
                      : `${row.change > 0 ? '+' : ''}${metric.format(row.change)}${row.changePercent === null ? '' : ` (${row.changePercent > 0 ? '+' : ''}${decimals.format(row.changePercent)} %)`}`}
                  </Table.Td>
                </Table.Tr>
              ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** Each competitor's share of all tracked engagement in the last days (the dashboard's figure). */
function ShareOfVoice({ days }: { days: number }) {
  const dashboard = useQuery({ queryKey: ['social', 'dashboard', days], queryFn: () => api.get<Dashboard>(`${API}/dashboard?days=${days}`) });
  if (dashboard.isError)
    return (
      <Alert color="red" role="alert">
        {problemMessage(dashboard.error)}
      </Alert>
    );
  const rows = [...(dashboard.data?.competitors ?? [])].sort((a, b) => (b.shareOfVoice ?? -1) - (a.shareOfVoice ?? -1));
  return (
    <Card withBorder component="section" aria-labelledby="share-of-voice-heading">
      <Title order={2} size="h4" id="share-of-voice-heading" mb="xs">
        Participación de voz, últimos {days} días
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        La interacción de cada uno sobre la de todos los competidores seguidos.
      </Text>
      {dashboard.isPending ? (
        <Text size="sm">Cargando…</Text>
      ) : rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No hay competidores activos.
        </Text>
      ) : (
        <Stack gap="xs" component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {rows.map((row, index) => (
            <li key={row.id}>
              <Group justify="space-between" gap="xs">
                <Text size="sm" fw={row.isOwn ? 600 : undefined}>
                  {row.isOwn ? `${row.name} (nosotros)` : row.name}
                </Text>
                <Text size="sm">
                  {row.shareOfVoice === null ? 'sin interacción' : percent(row.shareOfVoice)} · {plural(row.engagement, 'interacción', 'interacciones')} en{' '}
                  {plural(row.posts, 'publicación', 'publicaciones')}
                </Text>
              </Group>
              {/* The bar repeats the figure written above it. */}
              <Progress aria-hidden value={row.shareOfVoice ?? 0} color={row.colour ?? PALETTE[index % PALETTE.length]} />
            </li>
          ))}
        </Stack>
      )}
    </Card>
  );
}

/** `/redes/comparacion`: the six metrics by day or week against every competitor, and share of voice. */
export default function ComparisonPage() {
  const filters = useUrlFilters(['metrica', 'periodo', 'red'] as const);
  const metric = (filters.values.metrica && filters.values.metrica in METRICS ? filters.values.metrica : 'engagement') as ComparisonMetric;
  const interval = filters.values.periodo === 'week' ? 'week' : 'day';
  // The API's default is the last 30 days; weeks look back twelve (the current one included).
  const from = interval === 'week' ? daysBefore(localToday(), 83) : undefined;
  const path = `${API}/comparison${queryString({ metric, interval, from, platform: filters.values.red })}`;
  const comparison = useQuery({ queryKey: ['social', 'comparison', path], queryFn: () => api.get<Comparison>(path), placeholderData: keepPreviousData });
  return (
    <>
      <PageTitle>Redes sociales: comparación</PageTitle>
      <Stack gap="md">
        <ShareOfVoice days={7} />
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <Select
            label="Métrica"
            allowDeselect={false}
            data={(Object.entries(METRICS) as [ComparisonMetric, { label: string }][]).map(([value, { label }]) => ({ value, label }))}
            value={metric}
            onChange={(value) => filters.set({ metrica: value === 'engagement' ? null : value }, { replace: true })}
          />
          <Select
            label="Red"
            placeholder="Todas"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de red' }}
            data={PLATFORM_OPTIONS}
            value={filters.values.red ?? null}
            onChange={(value) => filters.set({ red: value }, { replace: true })}
          />
          <div>
            <Text size="sm" fw={500} mb={4} id="comparison-interval">
              Periodo
            </Text>
            <SegmentedControl
              aria-labelledby="comparison-interval"
              value={interval}
              onChange={(value) => filters.set({ periodo: value === 'week' ? 'week' : null }, { replace: true })}
              data={Object.entries(INTERVALS).map(([value, label]) => ({ value, label }))}
            />
          </div>
        </SimpleGrid>
        <section aria-labelledby="comparison-heading">
          <Title order={2} size="h4" id="comparison-heading" mb="xs">
            {METRICS[metric].label} por {interval === 'day' ? 'día, últimos 30 días' : 'semana, últimas 12 semanas'}
          </Title>
          {comparison.isError && (
            <Alert color="red" role="alert">
              {problemMessage(comparison.error)}
            </Alert>
          )}
          {comparison.data && <MetricChart comparison={comparison.data} />}
        </section>
      </Stack>
    </>
  );
}
