import 'uplot/dist/uPlot.min.css';
import { Table, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { formatDate, formatDayMonth } from '../app/format';
import { formatPoints, type PopularityDashboard } from './data';

/** Line colours dark enough to tell apart on white; our candidate always gets the first. */
const PALETTE = ['#1864ab', '#c92a2a', '#2b8a3e', '#e67700', '#5f3dc4', '#0b7285', '#862e9c', '#5c940d'];

/** A colour per competitor, ours first, the rest in the order of the average. */
export function competitorColours(averages: PopularityDashboard['pollAverage']['averages']): Map<string, string> {
  const ordered = [...averages].sort((a, b) => Number(b.isOwn) - Number(a.isOwn));
  return new Map(ordered.map((row, index) => [row.competitorId, PALETTE[index % PALETTE.length]!]));
}

/** A band's fill (20 % opaque) and its edges (40 %): the line stands out of its band. */
const bandFill = (hex: string) => `${hex}33`;
const bandEdge = (hex: string) => `${hex}66`;

/**
 * The poll average over the last 30 days, one line per competitor inside its band (the 95 % range
 * the average may be off by), with the same numbers as a table for anyone who cannot see the chart.
 */
export function AverageChart({ pollAverage }: { pollAverage: PopularityDashboard['pollAverage'] }) {
  const container = useRef<HTMLDivElement>(null);
  const colours = competitorColours(pollAverage.averages);
  const shown = pollAverage.averages.filter((row) => pollAverage.trend.some((day) => day.averages.some((point) => point.competitorId === row.competitorId)));
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const x = pollAverage.trend.map((day) => Date.parse(`${day.date}T12:00:00Z`) / 1000);
    const column = (competitorId: string, key: 'average' | 'low' | 'high') =>
      pollAverage.trend.map((day) => day.averages.find((point) => point.competitorId === competitorId)?.[key] ?? null);
    const series: uPlot.Series[] = [{ label: 'Día', value: (_plot, value: number | null) => (value === null ? '—' : formatDate(new Date(value * 1000))) }];
    const data: (number | null)[][] = [];
    const bands: uPlot.Band[] = [];
    const points = (value: number | null) => (value === null ? '—' : formatPoints(value));
    for (const row of shown) {
      const colour = colours.get(row.competitorId)!;
      const first = series.length;
      series.push(
        { label: row.name, stroke: colour, width: 2, value: (_plot, value) => points(value) },
        { label: `${row.name} (banda alta)`, stroke: bandEdge(colour), width: 1, value: (_plot, value) => points(value) },
        { label: `${row.name} (banda baja)`, stroke: bandEdge(colour), width: 1, value: (_plot, value) => points(value) },
      );
      data.push(column(row.competitorId, 'average'), column(row.competitorId, 'high'), column(row.competitorId, 'low'));
      bands.push({ series: [first + 1, first + 2], fill: bandFill(colour) });
    }
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: 300,
        series,
        bands,
        legend: { show: false },
        axes: [
          { space: 70, values: (_plot, ticks) => ticks.map((tick) => formatDayMonth(new Date(tick * 1000))) },
          { values: (_plot, ticks) => ticks.map((tick) => `${formatPoints(tick)} %`), size: 60 },
        ],
        scales: { x: { time: true } },
      },
      [x, ...data] as uPlot.AlignedData,
      element,
    );
    element.dataset.bands = String(bands.length);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: 300 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
    // The chart is drawn again when the answer changes; colours and rows follow from it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pollAverage]);
  return (
    <>
      <div
        ref={container}
        role="img"
        aria-label={`Promedio de encuestas de los últimos 30 días con su banda de ${formatPoints(pollAverage.confidence * 100)} %: ${shown.map((row) => row.name).join(', ')}`}
      />
      <ul aria-hidden="true" style={{ display: 'flex', gap: 16, listStyle: 'none', padding: 0, margin: '4px 0', flexWrap: 'wrap' }}>
        {shown.map((row) => (
          <li key={row.competitorId} style={{ display: 'flex', alignItems: 'center', gap: 6 }}>
            <span style={{ width: 14, height: 4, background: colours.get(row.competitorId) }} />
            <Text span size="sm">
              {row.name}
            </Text>
          </li>
        ))}
      </ul>
      <details>
        <summary>
          <Text span size="sm">
            Ver los datos como tabla
          </Text>
        </summary>
        <Table.ScrollContainer minWidth={500}>
          <Table fz="sm">
            <Table.Caption>Promedio diario de cada candidato, con su banda (mínimo – máximo)</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Día</Table.Th>
                {shown.map((row) => (
                  <Table.Th key={row.competitorId} ta="right">
                    {row.name}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {pollAverage.trend.map((day) => (
                <Table.Tr key={day.date}>
                  <Table.Td>{formatDate(day.date)}</Table.Td>
                  {shown.map((row) => {
                    const point = day.averages.find((entry) => entry.competitorId === row.competitorId);
                    return (
                      <Table.Td key={row.competitorId} ta="right">
                        {point ? `${formatPoints(point.average)} (${formatPoints(point.low)} – ${formatPoints(point.high)})` : '—'}
                      </Table.Td>
                    );
                  })}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </details>
    </>
  );
}
