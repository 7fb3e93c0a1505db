import { Alert, Badge, Button, Checkbox, Group, Loader, SegmentedControl, Stack, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { plural, formatDateTime, formatRelative, formatTime } from '../app/format';
import { loadedRows, useCursorPages } from '../app/paging';
import { problemMessage } from '../app/problems';
import { useNow } from '../app/useNow';
import { keys, listPath, windowOpenAt, type Conversation, type ListFilters } from './inbox';

const PAGE_SIZE = 25;

/** The filters as the URL keeps them (`?estado=cerradas&de=mias&noLeidas=1&q=ana`), so a link or a reload opens the same list. */
export function useListFilters(): [ListFilters, (change: Partial<ListFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters: ListFilters = {
    status: params.get('estado') === 'cerradas' ? 'closed' : 'open',
    assignee: params.get('de') === 'mias' ? 'me' : params.get('de') === 'sin-asignar' ? 'none' : 'all',
    unread: params.get('noLeidas') === '1',
    q: params.get('q') ?? '',
  };
  const change = (next: Partial<ListFilters>) => {
    const merged = { ...filters, ...next };
    const query = new URLSearchParams();
    if (merged.status === 'closed') query.set('estado', 'cerradas');
    if (merged.assignee !== 'all') query.set('de', merged.assignee === 'me' ? 'mias' : 'sin-asignar');
    if (merged.unread) query.set('noLeidas', '1');
    if (merged.q) query.set('q', merged.q);
    setParams(query, { replace: true });
  };
  return [filters, change];
}

function preview(conversation: Conversation): string {
  const last = conversation.lastMessage;
  if (!last) return 'Sin mensajes';
  const text = last.text ?? (last.kind === 'media' ? 'Archivo adjunto' : 'Mensaje');
  return last.direction === 'out' ? `Usted: ${text}` : text;
}

function Row({ conversation, selected, now, search }: { conversation: Conversation; selected: boolean; now: number; search: string }) {
  const unread = conversation.unreadCount;
  const open = windowOpenAt(conversation, now);
  return (
    <li>
      <Link to={{ pathname: `/whatsapp/${conversation.id}`, search }} className="inbox-row" aria-current={selected ? 'page' : undefined} data-unread={unread > 0 || undefined}>
        <span className="inbox-row-top">
          <span className="inbox-row-name">{conversation.contact.name}</span>
          <time dateTime={conversation.lastMessageAt} title={formatDateTime(conversation.lastMessageAt)} className="inbox-row-time">
            {formatRelative(conversation.lastMessageAt, now)}
          </time>
        </span>
        <span className="inbox-row-middle">
          <span className="inbox-row-preview">{preview(conversation)}</span>
          {unread > 0 && (
            <Badge size="sm" circle={unread < 10} color="red" variant="filled" className="inbox-row-badge">
              <span aria-hidden="true">{unread}</span>
              <VisuallyHidden>{`, ${plural(unread, 'mensaje sin leer', 'mensajes sin leer')}`}</VisuallyHidden>
            </Badge>
          )}
        </span>
        <span className="inbox-row-bottom">
          <span className={open ? 'inbox-window inbox-window-open' : 'inbox-window'}>
            <VisuallyHidden>, </VisuallyHidden>
            {open ? `Ventana hasta las ${formatTime(conversation.windowExpiresAt!)}` : 'Ventana cerrada'}
          </span>
          <span className="inbox-row-assignee">
            <VisuallyHidden>, </VisuallyHidden>
            {conversation.assignee ? `Asignada a ${conversation.assignee.name}` : 'Sin asignar'}
          </span>
        </span>
      </Link>
    </li>
  );
}

/** The conversations, newest activity first, with Chatwoot's filters; rows move as the inbox room speaks. */
export function ConversationList({ selectedId }: { selectedId: string | undefined }) {
  const location = useLocation();
  const [filters, setFilters] = useListFilters();
  const [typed, setTyped] = useState(filters.q);
  const [debounced] = useDebouncedValue(typed, 300);
  const now = useNow();
  useEffect(() => {
    if (debounced.trim() !== filters.q) setFilters({ q: debounced.trim() });
    // Only a new search text changes the URL; the other filters write it themselves.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);

  const list = useCursorPages<Conversation>(keys.list(filters), listPath(filters), PAGE_SIZE);
  const rows = loadedRows(list.data);
  const search = location.search;
  const searching = filters.q.length > 0;

  return (
    <Stack gap="xs" h="100%">
      <Title order={2} size="h5" id="inbox-list-title">
        Conversaciones
      </Title>
      <SegmentedControl
        size="xs"
        fullWidth
        aria-label="Estado de las conversaciones"
        value={filters.status}
        onChange={(value) => setFilters({ status: value as ListFilters['status'] })}
        data={[
          { value: 'open', label: 'Abiertas' },
          { value: 'closed', label: 'Cerradas' },
        ]}
      />
      <SegmentedControl
        size="xs"
        fullWidth
        aria-label="Asignación"
        value={filters.assignee}
        onChange={(value) => setFilters({ assignee: value as ListFilters['assignee'] })}
        data={[
          { value: 'me', label: 'Mías' },
          { value: 'none', label: 'Sin asignar' },
          { value: 'all', label: 'Todas' },
        ]}
      />
      <TextInput
        size="xs"
        type="search"
        aria-label="Buscar por nombre o teléfono"
        placeholder="Buscar por nombre o teléfono"
        value={typed}
        onChange={(event) => setTyped(event.currentTarget.value)}
      />
      <Checkbox size="xs" label="Solo no leídas" checked={filters.unread} onChange={(event) => setFilters({ unread: event.currentTarget.checked })} />
      {list.isError && (
        <Alert color="red" role="alert">
          {problemMessage(list.error)}
        </Alert>
      )}
      <div className="inbox-list-scroll" aria-busy={list.isFetching}>
        {list.isPending ? (
          <Group justify="center" p="md">
            <Loader size="sm" aria-label="Cargando conversaciones" />
          </Group>
        ) : rows.length === 0 ? (
          <Text c="dimmed" size="sm" ta="center" p="md">
            {searching || filters.unread || filters.assignee !== 'all' || filters.status === 'closed'
              ? 'Ninguna conversación con estos filtros.'
              : 'Aún no hay conversaciones. Cuando alguien escriba al WhatsApp de la campaña aparecerá aquí.'}
          </Text>
        ) : (
          <ul className="inbox-rows" aria-label="Conversaciones">
            {rows.map((conversation) => (
              <Row key={conversation.id} conversation={conversation} selected={conversation.id === selectedId} now={now} search={search} />
            ))}
          </ul>
        )}
        {list.hasNextPage && (
          <Group justify="center" p="xs">
            <Button variant="default" size="xs" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
              Cargar más
            </Button>
          </Group>
        )}
      </div>
    </Stack>
  );
}
