import 'uplot/dist/uPlot.min.css';
import { Table, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { formatDate, formatDayMonth } from './format';

export interface LineSeries {
  key: string;
  label: string;
  colour: string;
  /** One value per bucket; null where there is none (a gap in the line, a dash in the table). */
  values: (number | null)[];
  /** The y scale the series is drawn on; a second scale gets its own axis on the right. */
  scale: string;
  /** How a value is said (axis, legend and table). */
  format: (value: number) => string;
  /** A thicker line (our own candidate among competitors). */
  emphasis?: boolean;
}

export interface LineChartProps {
  /** Start of each day or week (`YYYY-MM-DD`, the campaign's time zone). */
  buckets: string[];
  interval: 'day' | 'week';
  series: LineSeries[];
  /** What the chart shows, for screen readers. */
  label: string;
  height?: number;
}

/**
 * Lines over days or weeks (uPlot), with the same numbers as a table under it for anyone who cannot
 * see the chart. uPlot and its styles load with the screen that draws a chart, not with the console.
 */
export function LineChart({ buckets, interval, series, label, height = 280 }: LineChartProps) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const x = buckets.map((day) => Date.parse(`${day}T12:00:00Z`) / 1000);
    const scales = [...new Set(series.map((entry) => entry.scale))];
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height,
        series: [
          { label: interval === 'day' ? 'Día' : 'Semana', value: (_plot: uPlot, value: number | null) => (value === null ? '—' : formatDate(new Date(value * 1000))) },
          ...series.map((entry) => ({
            label: entry.label,
            stroke: entry.colour,
            width: entry.emphasis ? 3 : 2,
            scale: entry.scale,
            value: (_plot: uPlot, value: number | null) => (value === null ? '—' : entry.format(value)),
          })),
        ],
        axes: [
          { space: 70, values: (_plot, ticks) => ticks.map((tick) => formatDayMonth(new Date(tick * 1000))) },
          ...scales.map((scale, index) => {
            const format = series.find((entry) => entry.scale === scale)!.format;
            return {
              scale,
              ...(index > 0 && { side: 1 as const }),
              values: (_plot: uPlot, ticks: number[]) => ticks.map((tick) => format(tick)),
              // Wide enough for the longest label ("21.500", "$ 1.250.000"): uPlot's default cuts them.
              size: (_plot: uPlot, values: string[] | null) => Math.max(50, ...(values ?? []).map((value) => value.length * 7 + 24)),
            };
          }),
        ],
        scales: { x: { time: true } },
      },
      [x, ...series.map((entry) => entry.values)],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [buckets, interval, series, height]);
  return (
    <>
      <div ref={container} role="img" aria-label={label} />
      <details>
        <summary>
          <Text span size="sm">
            Ver los datos como tabla
          </Text>
        </summary>
        <Table.ScrollContainer minWidth={500}>
          <Table fz="sm">
            <Table.Caption>{label}</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{interval === 'day' ? 'Día' : 'Semana desde'}</Table.Th>
                {series.map((entry) => (
                  <Table.Th key={entry.key} ta="right">
                    {entry.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {buckets.map((bucket, index) => (
                <Table.Tr key={bucket}>
                  <Table.Td>{formatDate(bucket)}</Table.Td>
                  {series.map((entry) => {
                    const value = entry.values[index];
                    return (
                      <Table.Td key={entry.key} ta="right">
                        {value === null || value === undefined ? '—' : entry.format(value)}
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
