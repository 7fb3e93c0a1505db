import { io, type Socket } from 'socket.io-client';

/** A connected socket.io client (websocket only, like the war-room screens), or the refusal. */
export function connectSocket(url: string, token: string | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(url, { path: '/socket.io', transports: ['websocket'], auth: token ? { token } : {}, reconnection: false, forceNew: true });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

export function subscribe(socket: Socket, rooms: unknown): Promise<{ ok: boolean; joined: string[]; denied: { room: string; code: string }[] }> {
  return socket.timeout(5000).emitWithAck('subscribe', { rooms });
}

/**
 * Resolves once everything the server had sent this socket has arrived: the server answers an
 * empty `unsubscribe` on the same connection, after whatever it wrote there before. A test that
 * saw an event reach one socket and asserts it did not reach another (of the same process) waits
 * for this instead of for a fixed time.
 */
export async function roundTrip(socket: Socket): Promise<void> {
  await socket.timeout(5000).emitWithAck('unsubscribe', { rooms: [] });
}

export function nextEvent<T>(socket: Socket, event: string, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    socket.once(event, (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

/**
 * The former socket-side name of `until` (test/helpers/wait.ts), kept for tests written beside
 * this change; new tests call `until`.
 * @deprecated use `until`
 */
export { until as waitFor } from './wait';
