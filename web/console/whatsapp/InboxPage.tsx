import './inbox.css';
import { Badge, Button, Drawer, Text, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Route, Routes, useParams } from 'react-router';
import { api, queryClient } from '../app/api';
import { plural } from '../app/format';
import { useLiveEvent } from '../app/live';
import { PageTitle } from '../app/pages';
import { useSignedIn } from '../app/session';
import { ConversationList } from './ConversationList';
import { addMessage, applyStatuses, keys, upsertConversation, type Unread } from './inbox';
import { PersonPanel } from './PersonPanel';
import { SimulatorNotice } from './SimulatorNotice';
import { Thread } from './Thread';
import { WhatsAppTabs } from './WhatsAppTabs';

/** The WhatsApp inbox: `/whatsapp` lists the conversations, `/whatsapp/:conversationId` opens one beside them. */
export default function InboxPage() {
  return (
    <Routes>
      <Route path=":conversationId?" element={<Inbox />} />
    </Routes>
  );
}

function UnreadBadge() {
  const unread = useQuery({ queryKey: keys.unread, queryFn: () => api.get<Unread>('/api/whatsapp/conversations/unread') });
  if (!unread.data) return null;
  const { conversations, messages } = unread.data;
  return (
    <Badge size="lg" color={conversations ? 'red' : 'gray'} variant={conversations ? 'filled' : 'light'} role="status" aria-live="polite">
      <span aria-hidden="true">{conversations ? `${conversations} sin leer` : 'Todo leído'}</span>
      <VisuallyHidden>
        {conversations
          ? `${plural(conversations, 'conversación abierta', 'conversaciones abiertas')} con ${plural(messages, 'mensaje sin leer', 'mensajes sin leer')}`
          : 'No hay mensajes sin leer'}
      </VisuallyHidden>
    </Badge>
  );
}

function Inbox() {
  const { conversationId } = useParams();
  const { user } = useSignedIn();
  const wide = useMediaQuery('(min-width: 75em)', false, { getInitialValueInEffect: false });
  const [personOpen, setPersonOpen] = useState(false);

  // Everything the inbox room says lands in the cached answers the panes read: no reload, no polling.
  useLiveEvent('whatsapp:message', ({ message, conversation }) => {
    upsertConversation(queryClient, conversation, user.id);
    addMessage(queryClient, message);
  });
  useLiveEvent('whatsapp:conversation', ({ conversation }) => upsertConversation(queryClient, conversation, user.id));
  useLiveEvent('whatsapp:status', ({ messages }) => {
    if (messages.length) applyStatuses(queryClient, messages);
  });
  useLiveEvent('whatsapp:unread', (unread) => queryClient.setQueryData<Unread>(keys.unread, unread));

  return (
    <div className="inbox-page">
      <PageTitle actions={<UnreadBadge />}>WhatsApp</PageTitle>
      <WhatsAppTabs />
      <SimulatorNotice>No hay una cuenta de WhatsApp Business configurada. Las respuestas, entregas y lecturas que vea son de prueba.</SimulatorNotice>
      <div className="inbox" data-view={conversationId ? 'thread' : 'list'} data-wide={wide || undefined}>
        <section className="inbox-list" aria-labelledby="inbox-list-title">
          <ConversationList selectedId={conversationId} />
        </section>
        <section className="inbox-thread" aria-label="Conversación abierta">
          {conversationId ? (
            <Thread
              key={conversationId}
              conversationId={conversationId}
              personToggle={
                wide ? undefined : (
                  <Button variant="default" size="xs" onClick={() => setPersonOpen(true)}>
                    Ficha de la persona
                  </Button>
                )
              }
            />
          ) : (
            <div className="inbox-empty">
              <Text c="dimmed" ta="center">
                Elija una conversación de la lista para leerla y responder.
              </Text>
            </div>
          )}
        </section>
        {conversationId && wide && (
          <aside className="inbox-person" aria-label="Ficha de la persona">
            <PersonPanel conversationId={conversationId} />
          </aside>
        )}
      </div>
      {conversationId && !wide && (
        <Drawer opened={personOpen} onClose={() => setPersonOpen(false)} position="right" title="Ficha de la persona" closeButtonProps={{ 'aria-label': 'Cerrar la ficha' }}>
          <PersonPanel conversationId={conversationId} />
        </Drawer>
      )}
    </div>
  );
}
