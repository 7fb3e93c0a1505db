import { Anchor, Badge, Button, Card, Group, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { AlertKind, AlertState } from '../../../src/modules/social/social.entities';
import { socialPolicy } from '../../../src/modules/social/social.policy';
import { api } from '../app/api';
import { queryString, useUrlFilters } from '../app/filters';
import { formatDateTime, formatRelative } from '../app/format';
import { useLiveEvent, useLiveState, type SocialAlertEvent } from '../app/live';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { invalidateServerLists, patchServerLists, ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { TONES } from '../app/tones';
import { ALERTS, alertReasons, KIND_LABELS, PLATFORM_LABELS, SEVERITY_LABELS, useCompetitors, type Alert } from './data';

const STATE_LABELS: Record<AlertState, string> = { new: 'Nueva', seen: 'Vista', dismissed: 'Descartada' };
const MAX_LIVE = 20;

function SeverityBadge({ severity }: { severity: Alert['severity'] }) {
  const { label, tone } = SEVERITY_LABELS[severity];
  return (
    <Badge color={TONES[tone].color} variant="light" tt="none" miw="max-content" styles={{ label: { color: TONES[tone].text } }}>
      {label}
    </Badge>
  );
}

/** An alert's title, why it fired and a link to the post on its platform. */
function AlertText({ alert }: { alert: Pick<Alert, 'title' | 'kind' | 'details'> }) {
  const url = typeof alert.details.url === 'string' ? alert.details.url : undefined;
  const platform = typeof alert.details.platform === 'string' ? PLATFORM_LABELS[alert.details.platform as keyof typeof PLATFORM_LABELS] : undefined;
  return (
    <Stack gap={2}>
      <Text size="sm" fw={500}>
        {alert.title}
      </Text>
      {alertReasons(alert.kind, alert.details).map((reason) => (
        <Text key={reason} size="sm" c="dimmed">
          {reason}
        </Text>
      ))}
      {url && (
        <Anchor href={url} target="_blank" rel="noopener noreferrer" size="sm">
          Ver la publicación{platform ? ` en ${platform}` : ''}
        </Anchor>
      )}
    </Stack>
  );
}

/** Alerts that arrived while the screen is open, newest first, as the socket announces them. */
function LiveAlerts({ alerts, competitorName }: { alerts: SocialAlertEvent[]; competitorName: (id: string | null) => string | undefined }) {
  const live = useLiveState();
  return (
    <Card withBorder padding="sm" component="section" aria-labelledby="social-live-heading">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="social-live-heading">
          En vivo
        </Title>
        <Text size="xs" c="dimmed">
          {live === 'live' ? 'Conectado: las alertas llegan sin recargar' : live === 'off' ? 'Sin conexión en vivo' : 'Conectando…'}
        </Text>
      </Group>
      <Stack gap="sm" component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }} aria-live="polite" aria-label="Alertas que llegaron en vivo">
        {alerts.length === 0 ? (
          <Text component="li" size="sm" c="dimmed">
            Nada nuevo desde que abrió esta pantalla.
          </Text>
        ) : (
          alerts.map((alert) => (
            <li key={alert.id} data-alert={alert.id}>
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <SeverityBadge severity={alert.severity} />
                <div>
                  <AlertText alert={alert} />
                  <Text size="xs" c="dimmed" title={formatDateTime(alert.createdAt)}>
                    {KIND_LABELS[alert.kind]}
                    {competitorName(alert.competitorId) ? ` · ${competitorName(alert.competitorId)}` : ''} · {formatRelative(alert.createdAt)}
                  </Text>
                </div>
              </Group>
            </li>
          ))
        )}
      </Stack>
    </Card>
  );
}

/** `/redes`: alerts live with their reasons, and every alert paged by the server, to mark seen or dismiss. */
export default function AlertsPage() {
  const { user } = useSignedIn();
  const triage = socialPolicy.allows(user, 'triageAlerts');
  const competitors = useCompetitors();
  const competitorName = (id: string | null) => (id ? competitors.data?.find((competitor) => competitor.id === id)?.name : undefined);
  const filters = useUrlFilters(['estado', 'gravedad', 'tipo', 'competidor'] as const);
  const [live, setLive] = useState<SocialAlertEvent[]>([]);

  useLiveEvent('social:alert', (alert) => {
    setLive((alerts) => [alert, ...alerts.filter((existing) => existing.id !== alert.id)].slice(0, MAX_LIVE));
    void invalidateServerLists(ALERTS);
  });

  const mark = async (alert: Alert, state: AlertState) => {
    try {
      await api.patch(`${ALERTS}/${alert.id}`, { state });
      patchServerLists<Alert>(ALERTS, (row) => (row.id === alert.id ? { ...row, state } : row));
      void invalidateServerLists(ALERTS);
    } catch (error) {
      notifications.show({ color: 'red', title: 'No se pudo marcar la alerta', message: problemMessage(error) });
    }
  };

  const columns: Column<Alert>[] = [
    {
      key: 'createdAt',
      header: 'Cuándo',
      render: (alert) => (
        <time dateTime={alert.createdAt} style={{ whiteSpace: 'nowrap' }}>
          {formatDateTime(alert.createdAt)}
        </time>
      ),
    },
    { key: 'severity', header: 'Gravedad', render: (alert) => <SeverityBadge severity={alert.severity} /> },
    { key: 'kind', header: 'Tipo', render: (alert) => KIND_LABELS[alert.kind] },
    { key: 'competitor', header: 'Competidor', render: (alert) => competitorName(alert.competitorId) ?? '—' },
    { key: 'what', header: 'Qué pasó y por qué', render: (alert) => <AlertText alert={alert} /> },
    { key: 'state', header: 'Estado', render: (alert) => STATE_LABELS[alert.state] },
    ...(triage
      ? [
          {
            key: 'actions',
            header: 'Acciones',
            render: (alert: Alert) => (
              <Group gap={4} wrap="nowrap">
                {alert.state === 'new' ? (
                  <>
                    <Button size="xs" variant="default" onClick={() => void mark(alert, 'seen')} aria-label={`Marcar vista: ${alert.title}`}>
                      Marcar vista
                    </Button>
                    <Button size="xs" variant="subtle" onClick={() => void mark(alert, 'dismissed')} aria-label={`Descartar: ${alert.title}`}>
                      Descartar
                    </Button>
                  </>
                ) : (
                  <Button size="xs" variant="subtle" onClick={() => void mark(alert, 'new')} aria-label={`Volver a nueva: ${alert.title}`}>
                    Volver a nueva
                  </Button>
                )}
              </Group>
            ),
          },
        ]
      : []),
  ];

  const path = `${ALERTS}${queryString({
    state: filters.values.estado,
    severity: filters.values.gravedad,
    kind: filters.values.tipo,
    competitorId: filters.values.competidor,
  })}`;

  return (
    <>
      <PageTitle>Redes sociales: alertas</PageTitle>
      <Stack gap="md">
        <LiveAlerts alerts={live} competitorName={competitorName} />
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="sm">
          <Select
            label="Estado"
            placeholder="Todos"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de estado' }}
            data={Object.entries(STATE_LABELS).map(([value, label]) => ({ value, label }))}
            value={filters.values.estado ?? null}
            onChange={(value) => filters.set({ estado: value })}
          />
          <Select
            label="Gravedad"
            placeholder="Todas"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de gravedad' }}
            data={Object.entries(SEVERITY_LABELS).map(([value, { label }]) => ({ value, label }))}
            value={filters.values.gravedad ?? null}
            onChange={(value) => filters.set({ gravedad: value })}
          />
          <Select
            label="Tipo"
            placeholder="Todos"
            clearable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de tipo' }}
            data={(Object.entries(KIND_LABELS) as [AlertKind, string][]).map(([value, label]) => ({ value, label }))}
            value={filters.values.tipo ?? null}
            onChange={(value) => filters.set({ tipo: value })}
          />
          <Select
            label="Competidor"
            placeholder={competitors.isPending ? 'Cargando…' : 'Todos'}
            clearable
            searchable
            clearButtonProps={{ 'aria-label': 'Quitar el filtro de competidor' }}
            data={(competitors.data ?? []).map((competitor) => ({ value: competitor.id, label: competitor.name }))}
            value={filters.values.competidor ?? null}
            onChange={(value) => filters.set({ competidor: value })}
          />
        </SimpleGrid>
        <ServerTable
          caption="Alertas de redes sociales"
          path={path}
          columns={columns}
          rowKey={(alert) => alert.id}
          empty={filters.active.length ? 'Ninguna alerta con estos filtros.' : 'Aún no hay alertas. Llegan cuando un competidor publica, algo despega o la conversación cambia.'}
        />
      </Stack>
    </>
  );
}
