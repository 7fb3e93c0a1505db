import { Alert, Anchor, Badge, Button, Group, Loader, Menu, Stack, Text, Title, VisuallyHidden } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Fragment, useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { messageStatuses } from '../../lib/labels';
import { api, queryClient } from '../app/api';
import { formatDateTime, formatDayLabel, formatTime, localDay } from '../app/format';
import { loadedRows, useCursorPages, type CursorPages } from '../app/paging';
import { problemMessage } from '../app/problems';
import { useSignedIn } from '../app/session';
import { useNow } from '../app/useNow';
import { Composer } from './Composer';
import { keys, replyRefusal, upsertConversation, windowOpenAt, type Assignee, type Conversation, type Message } from './inbox';
import { PqrsDialog } from './PqrsDialog';
import { QuickRepliesDialog } from './QuickRepliesDialog';

const THREAD_PAGE = 30;

/** The row as the lists already hold it, so the thread's header shows at once while its own answer comes. */
function cachedRow(id: string): Conversation | undefined {
  for (const [, data] of queryClient.getQueriesData<CursorPages<Conversation>>({ queryKey: keys.lists })) {
    for (const page of data?.pages ?? []) {
      const row = page.data.find((candidate) => candidate.id === id);
      if (row) return row;
    }
  }
  return undefined;
}

export function useConversation(id: string) {
  return useQuery({
    queryKey: keys.conversation(id),
    queryFn: () => api.get<Conversation>(`/api/whatsapp/conversations/${id}`),
    placeholderData: () => cachedRow(id),
  });
}

/** Who a conversation may be handed to (everyone who converses may ask). */
export function useAssignees() {
  return useQuery({ queryKey: keys.assignees, queryFn: () => api.all<Assignee>('/api/whatsapp/assignees', 500), staleTime: 5 * 60_000 });
}

/** The ticks: ✓ sent, ✓✓ delivered, ✓✓ in blue read, always said in words too. */
function Ticks({ message }: { message: Message }) {
  const label = messageStatuses[message.status as keyof typeof messageStatuses] ?? message.status;
  const mark =
    message.status === 'read' || message.status === 'delivered'
      ? '✓✓'
      : message.status === 'sent' || message.status === 'accepted'
        ? '✓'
        : message.status === 'failed'
          ? '⚠'
          : message.status === 'queued' || message.status === 'sending'
            ? '🕓'
            : '·';
  return (
    <span className="message-ticks" data-status={message.status} title={label}>
      <span aria-hidden="true">{mark} </span>
      {label}
    </span>
  );
}

function messageText(message: Message): string {
  if (message.text) return message.text;
  if (message.kind === 'media') return 'Archivo adjunto (imagen, audio o documento): la consola aún no lo muestra; véalo en el teléfono de la campaña.';
  return 'Mensaje de un tipo que la consola no muestra.';
}

function MessageItem({ message, contactName, staffName }: { message: Message; contactName: string; staffName: (id: string | null) => string | undefined }) {
  const inbound = message.direction === 'in';
  const author = inbound ? contactName : (staffName(message.sentById) ?? (message.campaignId ? 'Campaña' : 'Equipo'));
  return (
    <li className="message" data-direction={message.direction}>
      <div className="message-bubble">
        <VisuallyHidden>{inbound ? `${author} escribió:` : `${author} respondió:`}</VisuallyHidden>
        {message.kind === 'template' && (
          <Badge size="xs" variant="light" color="grape" mb={4}>
            Plantilla
          </Badge>
        )}
        <Text size="sm" className="message-text">
          {messageText(message)}
        </Text>
        <div className="message-meta">
          {!inbound && <span aria-hidden="true">{author} · </span>}
          <time dateTime={message.createdAt} title={formatDateTime(message.createdAt)}>
            {formatTime(message.createdAt)}
          </time>
          {!inbound && (
            <>
              {' · '}
              <Ticks message={message} />
            </>
          )}
        </div>
        {message.status === 'failed' && message.error?.title && (
          <Text size="xs" c="red.8">
            {`WhatsApp no lo entregó: ${message.error.title}`}
          </Text>
        )}
      </div>
    </li>
  );
}

/**
 * The thread, oldest to newest: the API pages it newest first, so "Cargar anteriores" asks for the
 * next page and the view keeps its place; a new message scrolls into view when the reader is at the bottom.
 */
function Messages({ conversation }: { conversation: Conversation }) {
  const thread = useCursorPages<Message>(keys.messages(conversation.id), `/api/whatsapp/conversations/${conversation.id}/messages`, THREAD_PAGE);
  const assignees = useAssignees();
  const { user } = useSignedIn();
  const now = useNow(60_000);
  const messages = loadedRows(thread.data).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const scroller = useRef<HTMLDivElement>(null);
  const kept = useRef<{ height: number; top: number } | null>(null);
  const atBottom = useRef(true);
  const newest = messages[messages.length - 1]?.id;

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    if (kept.current) {
      // Older messages came in above: the reader stays on the message they were reading.
      element.scrollTop = element.scrollHeight - kept.current.height + kept.current.top;
      kept.current = null;
    } else if (atBottom.current) {
      element.scrollTop = element.scrollHeight;
    }
  }, [messages.length, newest]);

  const staffName = (id: string | null) => (id ? (id === user.id ? 'Usted' : assignees.data?.find((person) => person.id === id)?.name) : undefined);
  const older = () => {
    const element = scroller.current;
    if (element) kept.current = { height: element.scrollHeight, top: element.scrollTop };
    void thread.fetchNextPage();
  };

  return (
    <div
      className="thread-scroll"
      ref={scroller}
      onScroll={(event) => {
        const element = event.currentTarget;
        atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
      }}
    >
      {thread.hasNextPage && (
        <Group justify="center" p="xs">
          <Button variant="default" size="xs" loading={thread.isFetchingNextPage} onClick={older}>
            Cargar anteriores
          </Button>
        </Group>
      )}
      {thread.isPending && (
        <Group justify="center" p="md">
          <Loader size="sm" aria-label="Cargando mensajes" />
        </Group>
      )}
      {thread.isError && (
        <Alert color="red" role="alert" m="sm">
          {problemMessage(thread.error)}
        </Alert>
      )}
      <div role="log" aria-label={`Mensajes con ${conversation.contact.name}`} className="thread-log">
        <ol className="messages">
          {messages.map((message, index) => {
            const day = localDay(message.createdAt);
            const newDay = index === 0 || localDay(messages[index - 1]!.createdAt) !== day;
            return (
              <Fragment key={message.id}>
                {newDay && (
                  <li className="messages-day" aria-hidden="true">
                    {formatDayLabel(message.createdAt, now)}
                  </li>
                )}
                <MessageItem message={message} contactName={conversation.contact.name} staffName={staffName} />
              </Fragment>
            );
          })}
        </ol>
      </div>
    </div>
  );
}

function WindowState({ conversation, now }: { conversation: Conversation; now: number }) {
  if (windowOpenAt(conversation, now)) {
    const expires = conversation.windowExpiresAt!;
    const sameDay = localDay(expires) === localDay(new Date(now));
    return (
      <Text size="xs" className="window-state inbox-window inbox-window-open">
        {`Ventana de 24 horas abierta hasta las ${formatTime(expires)}${sameDay ? '' : ' de mañana'}`}
      </Text>
    );
  }
  return (
    <Text size="xs" className="window-state inbox-window inbox-window-closed">
      {conversation.windowExpiresAt
        ? `Ventana de 24 horas cerrada desde el ${formatDateTime(conversation.windowExpiresAt)}`
        : 'Ventana de 24 horas cerrada: la persona aún no ha escrito'}
    </Text>
  );
}

/** Assign to oneself, to another staff member who converses, or to nobody. */
function AssignMenu({ conversation, onChange }: { conversation: Conversation; onChange: (assignedToId: string | null) => void }) {
  const { user } = useSignedIn();
  const assignees = useAssignees();
  const others = (assignees.data ?? []).filter((person) => person.id !== user.id && person.id !== conversation.assignedToId);
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" size="xs">
          {conversation.assignee ? `Asignada a ${conversation.assignee.id === user.id ? 'usted' : conversation.assignee.name}` : 'Asignar'}
        </Button>
      </Menu.Target>
      <Menu.Dropdown aria-label="Asignar la conversación">
        {conversation.assignedToId !== user.id && <Menu.Item onClick={() => onChange(user.id)}>Asignarme a mí</Menu.Item>}
        {others.length > 0 && <Menu.Label>Asignar a</Menu.Label>}
        {others.map((person) => (
          <Menu.Item key={person.id} onClick={() => onChange(person.id)}>
            {person.name}
          </Menu.Item>
        ))}
        {assignees.isPending && <Menu.Label>Cargando el equipo…</Menu.Label>}
        {conversation.assignedToId && (
          <>
            <Menu.Divider />
            <Menu.Item onClick={() => onChange(null)}>Quitar asignación</Menu.Item>
          </>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}

/** The open conversation: who, the window, the actions, the thread and the reply box. */
export function Thread({ conversationId, personToggle }: { conversationId: string; personToggle?: ReactNode }) {
  const { user } = useSignedIn();
  const conversation = useConversation(conversationId);
  const navigate = useNavigate();
  const location = useLocation();
  const now = useNow(30_000);
  const [pqrsOpen, pqrs] = useDisclosure(false);
  const [quickOpen, quick] = useDisclosure(false);
  const row = conversation.data;

  const change = useMutation({
    mutationFn: (body: { assignedToId?: string | null; status?: 'open' | 'closed' }) => api.patch<Conversation>(`/api/whatsapp/conversations/${conversationId}`, body),
    onSuccess: (answer, body) => {
      upsertConversation(queryClient, answer, user.id);
      const what =
        body.status === 'closed'
          ? 'Conversación resuelta.'
          : body.status === 'open'
            ? 'Conversación reabierta.'
            : answer.assignee
              ? `Asignada a ${answer.assignee.name}.`
              : 'Conversación sin asignar.';
      notifications.show({ color: 'green', message: what });
    },
    onError: (error) => notifications.show({ color: 'red', title: 'No se pudo cambiar la conversación', message: replyRefusal(error) }),
  });

  // Opening a conversation reads it; a message that arrives while it is open on screen is read too.
  const reading = useRef(false);
  const leaving = useRef(false);
  const unread = row?.unreadCount ?? 0;
  const fresh = conversation.isSuccess && !conversation.isPlaceholderData;
  useEffect(() => {
    if (!fresh || unread === 0 || reading.current || leaving.current || document.visibilityState !== 'visible') return;
    reading.current = true;
    api
      .post<Conversation>(`/api/whatsapp/conversations/${conversationId}/read`)
      .then((answer) => upsertConversation(queryClient, answer, user.id))
      .catch(() => undefined)
      .finally(() => {
        reading.current = false;
      });
  }, [fresh, unread, conversationId, user.id]);

  const markUnread = async () => {
    // Back to the list first, and no reading meanwhile: a thread left open would read it again.
    leaving.current = true;
    navigate({ pathname: '/whatsapp', search: location.search });
    try {
      const answer = await api.post<Conversation>(`/api/whatsapp/conversations/${conversationId}/unread`);
      upsertConversation(queryClient, answer, user.id);
      notifications.show({ color: 'blue', message: `La conversación con ${answer.contact.name} quedó como no leída.` });
    } catch (error) {
      notifications.show({ color: 'red', title: 'No se pudo marcar como no leída', message: replyRefusal(error) });
    }
  };

  if (conversation.isError && !row) {
    return (
      <Alert color="red" role="alert" m="md">
        {problemMessage(conversation.error)}
      </Alert>
    );
  }
  if (!row) {
    return (
      <Group justify="center" p="xl">
        <Loader aria-label="Cargando la conversación" />
      </Group>
    );
  }

  return (
    <div className="thread">
      <header className="thread-header">
        <Stack gap={2} miw={0}>
          <Group gap="xs" wrap="nowrap">
            <Anchor component={Link} to={{ pathname: '/whatsapp', search: location.search }} size="sm" className="thread-back">
              ← Conversaciones
            </Anchor>
            <Title order={2} size="h4" className="thread-title">
              {row.contact.name}
            </Title>
            {row.status === 'closed' && (
              <Badge color="gray" variant="light">
                Resuelta
              </Badge>
            )}
          </Group>
          <Group gap="xs">
            {row.contact.phone && (
              <Text size="xs" c="dimmed">
                {row.contact.phone}
              </Text>
            )}
            <WindowState conversation={row} now={now} />
          </Group>
        </Stack>
        <Group gap="xs" justify="flex-end">
          <AssignMenu conversation={row} onChange={(assignedToId) => change.mutate({ assignedToId })} />
          <Button
            size="xs"
            variant={row.status === 'open' ? 'filled' : 'default'}
            loading={change.isPending}
            onClick={() => change.mutate({ status: row.status === 'open' ? 'closed' : 'open' })}
          >
            {row.status === 'open' ? 'Resolver' : 'Reabrir'}
          </Button>
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <Button size="xs" variant="default">
                Más acciones
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={() => void markUnread()}>Marcar como no leída</Menu.Item>
              <Menu.Item onClick={pqrs.open}>Convertir en PQRS</Menu.Item>
              <Menu.Item onClick={quick.open}>Respuestas rápidas…</Menu.Item>
            </Menu.Dropdown>
          </Menu>
          {personToggle}
        </Group>
      </header>
      <Messages conversation={row} />
      <Composer conversation={row} now={now} onManageQuickReplies={quick.open} />
      <PqrsDialog conversation={row} opened={pqrsOpen} onClose={pqrs.close} />
      <QuickRepliesDialog opened={quickOpen} onClose={quick.close} />
    </div>
  );
}
