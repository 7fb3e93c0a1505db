import { Alert, Badge, Blockquote, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api } from '../app/api';
import { RelativeTime } from '../app/Time';
import { KIND_LABELS, label, MODULE_LABELS } from './labels';
import { peopleProblem } from './problems';
import type { TimelineItem, TimelinePage } from './types';

const MODULE_COLOURS: Record<string, string> = {
  audience: 'gray',
  qr: 'grape',
  whatsapp: 'green',
  email: 'blue',
  volunteers: 'orange',
  agenda: 'cyan',
  pqrs: 'red',
  gotv: 'indigo',
  finance: 'yellow',
};

const MESSAGE_STATUS: Record<string, string> = {
  queued: 'en cola',
  sending: 'enviándose',
  accepted: 'aceptado por WhatsApp',
  sent: 'enviado',
  delivered: 'entregado',
  read: 'leído',
  failed: 'no se pudo entregar',
  in_doubt: 'sin confirmar',
  skipped: 'no enviado',
  cancelled: 'cancelado',
  received: 'recibido',
};

/** What the person wrote or was written, when the fact carries a text (a message, a note). */
function quoted(item: TimelineItem): string | null {
  const text = item.detail?.text;
  return typeof text === 'string' && text.trim() ? text : null;
}

function Fact({ item }: { item: TimelineItem }) {
  const text = quoted(item);
  const status = item.module === 'whatsapp' && item.kind === 'message_out' && typeof item.detail?.status === 'string' ? MESSAGE_STATUS[item.detail.status] : undefined;
  return (
    <li>
      <Group gap="xs" align="baseline" wrap="nowrap">
        <Text size="xs" c="dimmed" w={110} style={{ flexShrink: 0 }}>
          <RelativeTime value={item.at} />
        </Text>
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Group gap={6}>
            <Badge size="sm" variant="dot" color={MODULE_COLOURS[item.module] ?? 'gray'} tt="none">
              {label(MODULE_LABELS, item.module)}
            </Badge>
            <Text size="xs" c="dimmed">
              {label(KIND_LABELS, item.kind)}
              {status ? ` · ${status}` : ''}
            </Text>
          </Group>
          <Text size="sm">{item.title}</Text>
          {text && (
            <Blockquote p="xs" mt={2} fz="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {text}
            </Blockquote>
          )}
        </Stack>
      </Group>
    </li>
  );
}

/**
 * Everything the campaign's modules know happened with the person, newest first: the first 200
 * facts come with the page; "Ver más antiguo" asks for those before, by the API's cursor. Keyed by
 * the first page's cursor where it is used, so a refreshed first page starts the older ones again.
 */
export function PersonTimeline({ personId, first }: { personId: string; first: TimelinePage }) {
  const [older, setOlder] = useState<TimelinePage[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cursor = older.length ? older[older.length - 1]!.nextCursor : first.nextCursor;
  const items = [...first.data, ...older.flatMap((page) => page.data)];

  const loadOlder = async () => {
    if (!cursor) return;
    setLoading(true);
    setError(null);
    try {
      const page = await api.get<TimelinePage>(`/api/audience/contacts/${personId}/timeline?before=${encodeURIComponent(cursor)}&limit=100`);
      setOlder((pages) => [...pages, page]);
    } catch (failure) {
      setError(peopleProblem(failure));
    } finally {
      setLoading(false);
    }
  };

  return (
    <Card withBorder component="section" aria-labelledby="historia">
      <Title order={2} size="h4" id="historia" mb="sm">
        Historia en todos los módulos
      </Title>
      {items.length === 0 ? (
        <Text c="dimmed">Aún no hay nada en su historia.</Text>
      ) : (
        <Stack component="ol" gap="sm" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Historia, lo más reciente primero">
          {items.map((item) => (
            <Fact key={`${item.module}:${item.kind}:${item.refId ?? ''}:${item.at}`} item={item} />
          ))}
        </Stack>
      )}
      {error && (
        <Alert color="red" role="alert" mt="sm">
          {error}
        </Alert>
      )}
      {cursor && (
        <Button variant="default" mt="md" onClick={() => void loadOlder()} loading={loading}>
          Ver más antiguo
        </Button>
      )}
    </Card>
  );
}
