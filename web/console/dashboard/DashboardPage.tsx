import { Alert, Anchor, Card, Grid, Group, Progress, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import type { z } from 'zod';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import type { overviewView } from '../../../src/modules/dashboard/dashboard.schemas';
import { api, queryClient } from '../app/api';
import { formatNumber, formatPercent, formatPesos } from '../app/format';
import { problemMessage } from '../app/problems';
import { useLiveEvent } from '../app/live';
import { CONSOLE_ENTRIES } from '../app/modules';
import { PageTitle } from '../app/pages';
import { useSignedIn } from '../app/session';
import { ActivityFeed } from './ActivityFeed';

const TrendsChart = lazy(() => import('./TrendsChart'));

export type Overview = z.output<typeof overviewView>;
export const OVERVIEW_KEY = ['dashboard', 'overview'] as const;

/** The console screen behind a KPI, when the console has it (a later module's screen lights its link up by existing). */
function screenFor(path: string, role: Parameters<typeof rolePermitted>[0]): string | undefined {
  const base = path.split('?')[0] ?? path;
  const entry = CONSOLE_ENTRIES.find((candidate) => !candidate.external && candidate.path === base);
  return entry && rolePermitted(role, entry.roles) ? path : undefined;
}

interface KpiCardProps {
  label: string;
  value: string;
  window: string;
  detail?: string | undefined;
  to?: string | undefined;
  tone?: 'red' | 'orange' | undefined;
  children?: React.ReactNode;
}

function KpiCard({ label, value, window, detail, to, tone, children }: KpiCardProps) {
  return (
    <Card withBorder padding="md" component="article" aria-label={label}>
      <Text size="sm" c="dimmed" fw={600}>
        {to ? (
          <Anchor component={Link} to={to} inherit>
            {label}
          </Anchor>
        ) : (
          label
        )}
      </Text>
      <Text fz={28} fw={700} c={tone ? `${tone}.8` : undefined} lh={1.3}>
        {value}
      </Text>
      {detail && <Text size="sm">{detail}</Text>}
      {children}
      <Text size="xs" c="dimmed" mt={4}>
        {window}
      </Text>
    </Card>
  );
}

type KpiWindow = { from: string | null; to: string };

/** A KPI's window in words: the API's own label is English, its bounds are not. */
function windowLabel(window: KpiWindow, open: string, now = Date.now()): string {
  if (window.from === null) return open;
  const days = Math.round((Date.parse(window.to) - Date.parse(window.from)) / 86_400_000);
  const unit = days === 1 ? 'día' : 'días';
  return Date.parse(window.to) > now + 60_000 ? `próximos ${days} ${unit}` : `últimos ${days} ${unit}`;
}

const signed = (value: number) => (value > 0 ? `+${formatNumber(value)}` : formatNumber(value));

function Kpis({ overview }: { overview: Overview }) {
  const { user } = useSignedIn();
  const cards: React.ReactNode[] = [];
  const o = overview;
  if (o.gotv) {
    cards.push(
      <KpiCard
        key="gotv"
        label="Día electoral: votaron"
        value={formatNumber(o.gotv.value)}
        window={windowLabel(o.gotv.window, 'hoy')}
        detail={`de ${formatNumber(o.gotv.confirmedVoters)} confirmados${o.gotv.turnoutPct === null ? '' : ` (${formatPercent(o.gotv.turnoutPct)})`} · ${o.gotv.stationsOpen}/${o.gotv.stations} puestos abiertos`}
        tone={o.gotv.stationsWithIncident ? 'orange' : undefined}
      />,
    );
  }
  if (o.pendingPqrs) {
    cards.push(
      <KpiCard
        key="pqrs"
        label="PQRS por responder"
        value={formatNumber(o.pendingPqrs.value)}
        window={windowLabel(o.pendingPqrs.window, 'abiertas ahora')}
        detail={`${formatNumber(o.pendingPqrs.overdue)} vencidas · ${formatNumber(o.pendingPqrs.dueSoon)} vencen pronto`}
        tone={o.pendingPqrs.overdue ? 'red' : o.pendingPqrs.dueSoon ? 'orange' : undefined}
        to={screenFor('/pqrs', user.role)}
      />,
    );
  }
  if (o.whatsappReach) {
    cards.push(
      <KpiCard
        key="whatsapp"
        label="WhatsApp entregados"
        value={formatNumber(o.whatsappReach.value)}
        window={windowLabel(o.whatsappReach.window, 'toda la campaña')}
        detail={`${formatNumber(o.whatsappReach.read)} leídos · ${formatNumber(o.whatsappReach.replies)} respuestas`}
        to={screenFor('/whatsapp', user.role)}
      />,
    );
  }
  if (o.leads) {
    cards.push(
      <KpiCard
        key="leads"
        label="Personas captadas (QR)"
        value={formatNumber(o.leads.value)}
        window={windowLabel(o.leads.window, 'toda la campaña')}
        detail={`${signed(o.leads.change)} frente al periodo anterior`}
        to={screenFor('/personas?originKind=qr_campaign', user.role)}
      />,
    );
  }
  if (o.activeVolunteers) {
    cards.push(
      <KpiCard
        key="volunteers"
        label="Voluntarios activos"
        value={formatNumber(o.activeVolunteers.value)}
        window={windowLabel(o.activeVolunteers.window, 'toda la campaña')}
        detail={`${signed(o.activeVolunteers.change)} frente al periodo anterior`}
        to={screenFor('/voluntarios', user.role)}
      />,
    );
  }
  if (o.upcomingEvents) {
    cards.push(
      <KpiCard
        key="events"
        label="Eventos próximos"
        value={formatNumber(o.upcomingEvents.value)}
        window={windowLabel(o.upcomingEvents.window, 'toda la campaña')}
        detail={`${formatNumber(o.upcomingEvents.going)} confirmaron asistencia`}
        to={screenFor('/agenda', user.role)}
      />,
    );
  }
  if (o.emailReach) {
    cards.push(
      <KpiCard
        key="email"
        label="Correos enviados"
        value={formatNumber(o.emailReach.value)}
        window={windowLabel(o.emailReach.window, 'toda la campaña')}
        detail={`${formatNumber(o.emailReach.opened)} abrieron · ${formatNumber(o.emailReach.clicked)} hicieron clic`}
        to={screenFor('/correo', user.role)}
      />,
    );
  }
  if (o.socialAlerts) {
    cards.push(
      <KpiCard
        key="social"
        label="Alertas de redes"
        value={formatNumber(o.socialAlerts.value)}
        window={windowLabel(o.socialAlerts.window, 'toda la campaña')}
        to={screenFor('/redes', user.role)}
      />,
    );
  }
  if (o.financialBalance) {
    const money = o.financialBalance;
    cards.push(
      <KpiCard
        key="finance"
        label="Balance financiero"
        value={formatPesos(money.value)}
        window={windowLabel(money.window, 'toda la campaña')}
        detail={`Ingresos ${formatPesos(money.income)} · gastos ${formatPesos(money.spent)}`}
        tone={money.warnings.some((warning) => warning.level === 'critical') ? 'red' : money.warnings.length ? 'orange' : undefined}
        to={screenFor('/finanzas', user.role)}
      >
        {money.capUsedPct !== null && (
          <Progress
            value={Math.min(100, money.capUsedPct)}
            color={money.capUsedPct >= 90 ? 'red' : money.capUsedPct >= 75 ? 'orange' : 'blue'}
            mt="xs"
            aria-label={`Tope de gastos usado: ${formatPercent(money.capUsedPct)}`}
          />
        )}
      </KpiCard>,
    );
  }
  return <SimpleGrid cols={{ base: 1, xs: 2, md: 3, xl: 4 }}>{cards}</SimpleGrid>;
}

export default function DashboardPage() {
  const overview = useQuery({ queryKey: OVERVIEW_KEY, queryFn: () => api.get<Overview>('/api/dashboard/overview') });
  // The pushed figures replace the ones this role was given; a KPI the role's answer did not carry stays out.
  useLiveEvent('dashboard:kpi', (pushed) => {
    queryClient.setQueryData<Overview>(OVERVIEW_KEY, (current) => {
      if (!current) return current;
      const next: Record<string, unknown> = { ...current };
      for (const key of Object.keys(current)) if (key in pushed) next[key] = (pushed as Record<string, unknown>)[key];
      return next as Overview;
    });
  });
  return (
    <>
      <PageTitle>Inicio</PageTitle>
      {overview.isError && (
        <Alert color="red" role="alert" mb="md">
          {problemMessage(overview.error)}
        </Alert>
      )}
      <Stack gap="lg">
        <section aria-labelledby="kpis-title">
          <Title order={2} size="h4" id="kpis-title" mb="xs">
            Indicadores
          </Title>
          {overview.data ? <Kpis overview={overview.data} /> : <Skeleton h={120} />}
        </section>
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, lg: 8 }}>
            <section aria-labelledby="trends-title">
              <Group justify="space-between" mb="xs">
                <Title order={2} size="h4" id="trends-title">
                  Tendencias
                </Title>
              </Group>
              <Card withBorder>
                <Suspense fallback={<Skeleton h={300} />}>
                  <TrendsChart />
                </Suspense>
              </Card>
            </section>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 4 }}>
            <section aria-labelledby="feed-title">
              <Title order={2} size="h4" id="feed-title" mb="xs">
                Alertas y actividad
              </Title>
              <ActivityFeed latestAlerts={overview.data?.socialAlerts?.latest ?? []} />
            </section>
          </Grid.Col>
        </Grid>
      </Stack>
    </>
  );
}
