import 'uplot/dist/uPlot.min.css';
import { Alert, Group, SegmentedControl, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import type { z } from 'zod';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { dashboardPolicy } from '../../../src/modules/dashboard/dashboard.policy';
import type { TrendMetric, trendsView } from '../../../src/modules/dashboard/dashboard.schemas';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { api } from '../app/api';
import { formatDate, formatDayMonth, formatNumber, formatPesos } from '../app/format';
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
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const x = trends.buckets.map((day) => Date.parse(`${day}T12:00:00Z`) / 1000);
    const series = trends.series.map((entry) => METRICS.find((known) => known.metric === entry.metric)!);
    const hasMoney = series.some((entry) => entry.money);
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: 280,
        series: [
          { label: trends.interval === 'day' ? 'Día' : 'Semana', value: (_plot: uPlot, value: number | null) => (value === null ? '—' : formatDate(new Date(value * 1000))) },
          ...series.map((entry) => ({
            label: entry.label,
            stroke: entry.colour,
            width: 2,
            scale: entry.money ? 'pesos' : 'count',
            value: (_plot: uPlot, value: number | null) => (value === null ? '—' : entry.money ? formatPesos(value) : formatNumber(value)),
          })),
        ],
        axes: [
          { space: 70, values: (_plot, ticks) => ticks.map((tick) => formatDayMonth(new Date(tick * 1000))) },
          { scale: 'count', values: (_plot, ticks) => ticks.map((tick) => formatNumber(tick)) },
          ...(hasMoney ? [{ scale: 'pesos', side: 1 as const, values: (_plot: uPlot, ticks: number[]) => ticks.map((tick) => formatPesos(tick)) }] : []),
        ],
        scales: { x: { time: true } },
      },
      [x, ...trends.series.map((entry) => entry.values)],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: 280 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [trends]);
  return (
    <>
      <div
        ref={container}
        role="img"
        aria-label={`Gráfico de tendencias: ${trends.series.map((entry) => METRICS.find((known) => known.metric === entry.metric)?.label).join(', ')}`}
      />
      <details>
        <summary>
          <Text span size="sm">
            Ver los datos como tabla
          </Text>
        </summary>
        <Table.ScrollContainer minWidth={500}>
          <Table fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{trends.interval === 'day' ? 'Día' : 'Semana desde'}</Table.Th>
                {trends.series.map((entry) => (
                  <Table.Th key={entry.metric} ta="right">
                    {METRICS.find((known) => known.metric === entry.metric)?.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {trends.buckets.map((bucket, index) => (
                <Table.Tr key={bucket}>
                  <Table.Td>{formatDate(bucket)}</Table.Td>
                  {trends.series.map((entry) => (
                    <Table.Td key={entry.metric} ta="right">
                      {entry.values[index] === null || entry.values[index] === undefined
                        ? '—'
                        : entry.unit === 'pesos'
                          ? formatPesos(entry.values[index])
                          : formatNumber(entry.values[index])}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </details>
    </>
  );
}
