import { Alert, Card, Group, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { formatDate, formatNumber, formatPercent, formatPesos, plural } from '../app/format';
import { TONES } from '../app/tones';
import { signedPesos, type Summary } from './data';

const LEVEL_COLORS = { info: 'blue', warning: 'orange', critical: 'red' } as const;
const LEVEL_TITLES = { info: 'Aviso', warning: 'Atención', critical: 'Alerta' } as const;

/** What share of the cap `value` is, for the bar (0–100). */
const shareOf = (value: number, cap: number) => Math.max(0, Math.min(100, (value / cap) * 100));

function Figure({ label, value, hint }: { label: string; value: string; hint?: string | undefined }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </div>
  );
}

/**
 * The spending cap as a gauge: what is spent, what the projection adds by election day, the API's
 * warnings (80 %, 95 %, the cap reached, the projection above it) in its own words, and the figures
 * behind them. Every number is the summary's; the screen computes none of the rules.
 */
export function CapGauge({ summary, compact = false }: { summary: Summary; compact?: boolean }) {
  const { cap, expenses, projectedSpend } = summary;
  const level = summary.warnings.some((warning) => warning.level === 'critical') ? 'red' : summary.warnings.some((warning) => warning.level === 'warning') ? 'orange' : 'green';
  const spentShare = cap ? shareOf(expenses, cap) : 0;
  const projectedShare = cap && projectedSpend !== null ? Math.max(0, shareOf(projectedSpend, cap) - spentShare) : 0;
  return (
    <Card withBorder component="section" aria-labelledby="finance-cap-title">
      <Stack gap="sm">
        <Group justify="space-between" align="baseline">
          <Title order={2} size="h4" id="finance-cap-title">
            Tope de gastos
          </Title>
          <Text size="sm" c="dimmed">
            Al {formatDate(summary.asOf)}
          </Text>
        </Group>
        {cap !== null ? (
          <>
            <Text>
              Gastado <strong>{formatPesos(expenses)}</strong> de {formatPesos(cap)} (<strong>{formatPercent(summary.capUsedPct ?? 0)}</strong>)
              {summary.remainingToCap !== null &&
                (summary.remainingToCap >= 0 ? `; quedan ${formatPesos(summary.remainingToCap)}.` : `; se pasó por ${formatPesos(-summary.remainingToCap)}.`)}
            </Text>
            <Progress.Root size={22}>
              <Progress.Section value={spentShare} color={TONES[level].color} aria-label="Gastado, en % del tope" />
              {projectedShare > 0 && (
                <Progress.Section
                  value={projectedShare}
                  color={TONES[level].color}
                  style={{ opacity: 0.35 }}
                  aria-label="Lo que la proyección suma hasta la elección, en % del tope"
                />
              )}
            </Progress.Root>
            {projectedSpend !== null && (
              <Text size="sm">
                Proyección al día de la elección: <strong>{formatPesos(projectedSpend)}</strong> ({formatPercent(Math.round((projectedSpend / cap) * 1000) / 10)} del tope; parte
                clara de la barra).
              </Text>
            )}
          </>
        ) : (
          <Text>Sin tope de gastos configurado: no se rechaza ningún gasto por el tope.</Text>
        )}
        {summary.warnings.map((warning) => (
          <Alert key={warning.code} color={LEVEL_COLORS[warning.level]} title={LEVEL_TITLES[warning.level]} role={warning.level === 'info' ? undefined : 'alert'} p="xs">
            {warning.message}
          </Alert>
        ))}
        {!compact && (
          <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }}>
            <Figure label="Ingresos" value={formatPesos(summary.income)} />
            <Figure label="Gastos" value={formatPesos(summary.expenses)} />
            <Figure label="Saldo" value={signedPesos(summary.balance)} />
            <Figure label="Gasto diario (30 días)" value={formatPesos(Math.round(summary.dailySpendRate))} />
            <Figure
              label="Día de la elección"
              value={summary.electionDate ? formatDate(summary.electionDate) : 'Sin fecha'}
              hint={
                summary.daysToElection === null
                  ? undefined
                  : summary.daysToElection >= 0
                    ? `faltan ${plural(summary.daysToElection, 'día', 'días')}`
                    : `hace ${plural(-summary.daysToElection, 'día', 'días')}`
              }
            />
            <Figure label="Proyección" value={projectedSpend === null ? 'Sin fecha de elección' : formatPesos(projectedSpend)} hint={`gastos + gasto diario × días que faltan`} />
          </SimpleGrid>
        )}
        {compact && (
          <Text size="sm" c="dimmed">
            Ingresos {formatPesos(summary.income)} · Gastos {formatPesos(summary.expenses)} · Saldo {signedPesos(summary.balance)} ·{' '}
            {formatNumber(summary.byCode.reduce((sum, row) => sum + row.entries, 0))} movimientos
          </Text>
        )}
      </Stack>
    </Card>
  );
}
