import { Alert, Group, SegmentedControl, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import type { z } from 'zod';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { dashboardPolicy } from '../../../src/modules/dashboard/dashboard.policy';
import type { TrendMetric, trendsView } from '../../../src/modules/dashboard/dashboard.schemas';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { api } from '../app/api';
import { formatNumber, formatPesos } from '../app/format';
import { LineChart, type LineSeries } from '../app/LineChart';
import { problemMessage } from '../app/problems';
import { useLiveEvent } from '../app/live';
import { useSignedIn } from '../app/session';

type Trends = z.output<typeof trendsView>;

const METRICS: { metric: TrendMetric; label: string; colour: string; money?: true }[] = [
  { metric: 'leads', label: 'Personas captadas', colour: '#1864ab' },
  { metric: 'whatsapp_replies', label: 'Respuestas de WhatsApp', colour: '#2b8a3e' },
  { metric: 'pqrs_opened', label: 'PQRS recibidas', colour: '#c92a2a' },
  { metric: 'volunteers_active', label: 'Voluntarios activos', colour: '#e67700' },
  { metric: 'spend', label: 'Gasto', colour: '#5f3dc4', money: true },
];

const RANGES = { day: 'Últimos 30 días', week: 'Últimas 12 semanas' } as const;

/** The campaign's daily (or weekly) figures as lines, with the same numbers as a table for anyone who cannot see the chart. */
export default function TrendsChart() {
  const { user } = useSignedIn();
  const [interval, setInterval] = useState<'day' | 'week'>('day');
  const shown = METRICS.filter((entry) => rolePermitted(user.role, entry.money ? financePolicy.roles('readSummary') : dashboardPolicy.roles('readCampaignFigures')));
  const path = `/api/dashboard/trends?metrics=${shown.map((entry) => entry.metric).join(',')}&interval=${interval}`;
  const trends = useQuery({ queryKey: ['dashboard', 'trends', path], queryFn: () => api.get<Trends>(path), placeholderData: keepPreviousData, enabled: shown.length > 0 });
  // Today's bucket moves with every lead and reply: refetch at most once a minute while events arrive.
  const lastRefresh = useRef<number | null>(null);
  useLiveEvent('dashboard:kpi', () => {
    lastRefresh.current ??= Date.now();
    if (Date.now() - lastRefresh.current < 60_000) return;
    lastRefresh.current = Date.now();
    void trends.refetch();
  });
  if (!shown.length) return <Text c="dimmed">Su rol no tiene tendencias que ver.</Text>;
  return (
    <>
      <Group justify="flex-end" mb="xs">
        <SegmentedControl
          size="xs"
          value={interval}
          onChange={(value) => setInterval(value as 'day' | 'week')}
          data={Object.entries(RANGES).map(([value, label]) => ({ value, label }))}
          aria-label="Periodo"
        />
      </Group>
      {trends.isError && (
        <Alert color="red" role="alert">
          {problemMessage(trends.error)}
        </Alert>
      )}
      {trends.data && <Chart trends={trends.data} />}
    </>
  );
}

function Chart({ trends }: { trends: Trends }) {
  const series = useMemo(
    () =>
      trends.series.map((entry): LineSeries => {
        const known = METRICS.find((metric) => metric.metric === entry.metric)!;
        return {
          key: entry.metric,
          label: known.label,
          colour: known.colour,
          values: entry.values,
          scale: known.money ? 'pesos' : 'count',
          format: entry.unit === 'pesos' ? formatPesos : formatNumber,
        };
      }),
    [trends],
  );
  return <LineChart buckets={trends.buckets} interval={trends.interval} series={series} label={`Gráfico de tendencias: ${series.map((entry) => entry.label).join(', ')}`} />;
}
