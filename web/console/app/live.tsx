import { useEffect, useEffectEvent, useSyncExternalStore, type ReactNode } from 'react';
import type { Socket } from 'socket.io-client';
import { rolePermitted, type Role } from '../../../src/kernel/auth/roles';
import type { RealtimeEvents } from '../../../src/kernel/realtime';
export type { AgendaAttendance, AgendaEventSummary } from '../../../src/modules/agenda/agenda.events';
import { AGENDA_ROOM } from '../../../src/modules/agenda/agenda.events';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { DASHBOARD_ROOM } from '../../../src/modules/dashboard/dashboard.events';
// Each module's events file adds its events to RealtimeEvents; these make the console's typing see them all.
export type { EmailCampaignEvent, EmailProgressEvent } from '../../../src/modules/email/email.events';
export type { PqrsRequestEvent } from '../../../src/modules/pqrs/pqrs.events';
export type { SocialAlertEvent } from '../../../src/modules/social/social.events';
export type { ConversationEvent, MessageActivityEvent, MessageEvent, StatusEvent, UnreadEvent } from '../../../src/modules/whatsapp/whatsapp.events';
import { EMAIL_ROOM } from '../../../src/modules/email/email.events';
import { emailPolicy } from '../../../src/modules/email/email.policy';
import { PQRS_ROOM, pqrsPolicy } from '../../../src/modules/pqrs/pqrs.policy';
import { qrPolicy } from '../../../src/modules/qr/qr.policy';
import { SOCIAL_ROOM } from '../../../src/modules/social/social.events';
import { socialPolicy } from '../../../src/modules/social/social.policy';
import { WHATSAPP_INBOX_ROOM, WHATSAPP_ROOM } from '../../../src/modules/whatsapp/whatsapp.events';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import type { LiveState } from '../../lib/live';
import { queryClient, webSession } from './api';
import { useSession } from './session';

/** The rooms the console listens to, each with the policy rule the server applies when it is joined. */
const ROOMS: readonly { room: string; roles: readonly Role[] }[] = [
  { room: DASHBOARD_ROOM, roles: qrPolicy.roles('followDashboard') },
  { room: SOCIAL_ROOM, roles: socialPolicy.roles('follow') },
  { room: WHATSAPP_ROOM, roles: whatsappPolicy.roles('follow') },
  // Conversations' texts: only for those who may hold them (the REST policy's rule).
  { room: WHATSAPP_INBOX_ROOM, roles: whatsappPolicy.roles('converse') },
  { room: PQRS_ROOM, roles: pqrsPolicy.roles('follow') },
  { room: EMAIL_ROOM, roles: emailPolicy.roles('follow') },
  { room: AGENDA_ROOM, roles: agendaPolicy.roles('follow') },
];

export const roomsFor = (role: Role): string[] => ROOMS.filter((entry) => rolePermitted(role, entry.roles)).map((entry) => entry.room);

export interface LiveSnapshot {
  state: LiveState | 'off';
  socket: Socket | undefined;
}

const OFF: LiveSnapshot = { state: 'off', socket: undefined };

/**
 * The console's one connection, outside React: the provider's effect opens and closes it (an
 * external system), components read it through `useSyncExternalStore`. A connection that was
 * closed (sign-out, a new token) can no longer report states over its successor's.
 */
const connection = {
  snapshot: OFF,
  listeners: new Set<() => void>(),
  subscribe(listener: () => void) {
    connection.listeners.add(listener);
    return () => void connection.listeners.delete(listener);
  },
  set(next: LiveSnapshot) {
    connection.snapshot = next;
    for (const listener of connection.listeners) listener();
  },
  open(rooms: string[], onUnauthorized: () => void): () => void {
    let current = true;
    let socket: Socket | undefined;
    connection.set({ state: 'connecting', socket: undefined });
    // The socket client loads with the first signed-in screen, not with the sign-in page.
    void import('../../lib/live').then(({ connectLive }) => {
      if (!current) return;
      const opened = connectLive({
        token: () => webSession.current?.token,
        rooms,
        onState: (state) => {
          if (current) connection.set({ state, socket: opened });
        },
        onReload: (reason) => {
          if (current && reason !== 'connect') void queryClient.invalidateQueries();
        },
        onUnauthorized: () => {
          if (current) onUnauthorized();
        },
      });
      socket = opened;
      connection.set({ state: 'connecting', socket: opened });
    });
    return () => {
      current = false;
      socket?.disconnect();
      connection.set(OFF);
    };
  },
};

/**
 * One socket for the whole console, joined to the rooms the role may follow. Events are
 * notifications: screens refetch or patch their cached answers with them. When events may have
 * been missed (reconnection without recovery, the server's `resync`) every cached answer is
 * refetched, so a screen converges on the database whatever the socket lost.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const { session, logout } = useSession();
  const role = session?.user.role;
  const token = session?.token;
  const onUnauthorized = useEffectEvent(() => void logout());
  useEffect(() => {
    if (!role || !token) return;
    const rooms = roomsFor(role);
    return rooms.length ? connection.open(rooms, onUnauthorized) : undefined;
  }, [role, token]);
  return children;
}

const useLive = (): LiveSnapshot => useSyncExternalStore(connection.subscribe, () => connection.snapshot);

export const useLiveState = (): LiveSnapshot['state'] => useLive().state;

/** Runs `handler` for each `event` the console's socket receives while the component is mounted. */
export function useLiveEvent<E extends keyof RealtimeEvents>(event: E, handler: (payload: RealtimeEvents[E]) => void): void {
  const { socket } = useLive();
  const onEvent = useEffectEvent(handler);
  useEffect(() => {
    if (!socket) return;
    const listener = (payload: RealtimeEvents[E]) => onEvent(payload);
    socket.on(event as string, listener);
    return () => {
      socket.off(event as string, listener);
    };
  }, [socket, event]);
}
