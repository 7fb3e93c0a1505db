import { Anchor, Badge, Card, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import { formatDateTime, formatRelative } from '../app/format';
import { useLiveEvent } from '../app/live';
import { useSignedIn } from '../app/session';

interface FeedItem {
  key: string;
  at: string;
  kind: 'social' | 'whatsapp' | 'pqrs';
  title: string;
  tone: string;
  to?: string | undefined;
}

const SEVERITY_TONE: Record<string, string> = { critical: 'red', high: 'orange', medium: 'yellow', low: 'gray' };
const KIND_LABEL = { social: 'Redes', whatsapp: 'WhatsApp', pqrs: 'PQRS' } as const;
const MAX_ITEMS = 25;

/**
 * What just happened: social alerts (the latest ones the overview carried, then live), WhatsApp
 * replies and PQRS filed or about to fall due, as the sockets announce them. Newest first.
 */
export function ActivityFeed({ latestAlerts }: { latestAlerts: { id: string; severity: string; title: string; createdAt: string }[] }) {
  const { user } = useSignedIn();
  const mayConverse = rolePermitted(user.role, whatsappPolicy.roles('converse'));
  const [live, setLive] = useState<FeedItem[]>([]);
  const add = (item: FeedItem) => setLive((items) => [item, ...items.filter((existing) => existing.key !== item.key)].slice(0, MAX_ITEMS));

  useLiveEvent('social:alert', (alert) =>
    add({ key: `social:${alert.id}`, at: alert.createdAt, kind: 'social', title: alert.title, tone: SEVERITY_TONE[alert.severity] ?? 'gray' }),
  );
  // The figures room's text-free notice: the feed says a reply came, the inbox (for those who converse) shows it.
  useLiveEvent('whatsapp:activity', (message) => {
    if (message.direction !== 'in') return;
    add({ key: `whatsapp:${message.id}`, at: message.createdAt, kind: 'whatsapp', title: 'Mensaje nuevo de WhatsApp', tone: 'green', to: mayConverse ? '/whatsapp' : undefined });
  });
  useLiveEvent('pqrs:request', (request) => {
    if (request.action !== 'filed' && request.action !== 'due_soon') return;
    add({
      key: `pqrs:${request.action}:${request.id}`,
      at: new Date().toISOString(),
      kind: 'pqrs',
      title: request.action === 'filed' ? `PQRS ${request.number} radicada` : `PQRS ${request.number} vence pronto`,
      tone: request.action === 'filed' ? 'blue' : 'orange',
      to: `/pqrs/${request.id}`,
    });
  });

  const seeded: FeedItem[] = latestAlerts.map((alert) => ({
    key: `social:${alert.id}`,
    at: alert.createdAt,
    kind: 'social',
    title: alert.title,
    tone: SEVERITY_TONE[alert.severity] ?? 'gray',
  }));
  const items = [...live, ...seeded.filter((item) => !live.some((existing) => existing.key === item.key))].sort((a, b) => b.at.localeCompare(a.at)).slice(0, MAX_ITEMS);

  return (
    <Card withBorder padding="sm">
      {items.length === 0 ? (
        <Text c="dimmed" size="sm">
          Sin alertas recientes. Lo que llegue aparecerá aquí sin recargar.
        </Text>
      ) : (
        <Stack gap="xs" component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }} aria-live="polite">
          {items.map((item) => (
            <li key={item.key}>
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <Badge color={item.tone} variant="light" size="sm" miw={80}>
                  {KIND_LABEL[item.kind]}
                </Badge>
                <div>
                  <Text size="sm">
                    {item.to ? (
                      <Anchor component={Link} to={item.to} inherit>
                        {item.title}
                      </Anchor>
                    ) : (
                      item.title
                    )}
                  </Text>
                  <Text size="xs" c="dimmed" title={formatDateTime(item.at)}>
                    {formatRelative(item.at)}
                  </Text>
                </div>
              </Group>
            </li>
          ))}
        </Stack>
      )}
    </Card>
  );
}
