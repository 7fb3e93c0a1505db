import { io, type Socket } from 'socket.io-client';
import type { SubscribeAck } from './api-types';

export type LiveState = 'connecting' | 'live' | 'reconnecting';

export interface LiveOptions {
  token: () => string | undefined;
  rooms: string[];
  /** Connection state for the screen's indicator. */
  onState: (state: LiveState) => void;
  /**
   * The screen must reload its figures from REST: on the first connection, on a reconnection the
   * server could not recover (events were missed), and on the server's `resync` (it lost events).
   */
  onReload: (reason: 'connect' | 'reconnect' | 'resync') => void;
  /** The server refused the token: the session has ended. */
  onUnauthorized: () => void;
}

/** The `resync` the server sends after it may have lost events (a Redis outage, a failed publish) or made a change too large to send as events. */
export interface ResyncEvent {
  rooms: string[];
  reason: string;
  at: string;
}

/**
 * One Socket.IO connection that joins `rooms` whenever it (re)connects without recovery, and asks
 * the screen to reload from REST whenever events may have been missed. A recovered connection
 * (Socket.IO's connection-state recovery, two minutes) gets its missed events replayed and keeps
 * its rooms, so nothing is reloaded.
 */
export function connectLive(options: LiveOptions): Socket {
  const socket = io({
    path: '/socket.io',
    transports: ['websocket'],
    auth: (send) => send({ token: options.token() }),
    reconnectionDelay: 500,
    reconnectionDelayMax: 5000,
  });
  let connectedBefore = false;
  socket.on('connect', () => {
    if (socket.recovered) {
      options.onState('live');
      return;
    }
    const reason = connectedBefore ? 'reconnect' : 'connect';
    connectedBefore = true;
    void (socket.timeout(10_000).emitWithAck('subscribe', { rooms: options.rooms }) as Promise<SubscribeAck>)
      .then((ack) => {
        if (!ack.ok && ack.error?.code === 'unauthorized') return options.onUnauthorized();
        options.onState('live');
        options.onReload(reason);
      })
      .catch(() => socket.disconnect().connect());
  });
  socket.on('resync', (_event: ResyncEvent) => options.onReload('resync'));
  socket.on('disconnect', (reason) => {
    options.onState('reconnecting');
    // The server ended the socket (a session ended, or it is shutting down): Socket.IO will not retry by itself.
    if (reason === 'io server disconnect') setTimeout(() => socket.connect(), 1000);
  });
  socket.on('connect_error', (error: Error & { data?: { code?: string } }) => {
    if (error.data?.code === 'unauthorized') {
      socket.disconnect();
      options.onUnauthorized();
    } else options.onState('reconnecting');
  });
  return socket;
}
