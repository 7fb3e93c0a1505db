/**
 * The phone's own storage (IndexedDB): the outbox of everything recorded, sent or not, and the
 * last call list and stations seen, so the app works with no network. A small promise wrapper;
 * the app needs two stores and a handful of calls, not a library.
 */

export type OutboxState = 'pending' | 'sent' | 'conflict' | 'rejected';

export interface OutboxItem {
  /** The report's clientReportId (turnout) or clientId (contacts, incidents): the key, so a resend is the same item. */
  id: string;
  kind: 'voter' | 'count' | 'contact' | 'incident';
  /** What the API is sent. */
  body: Record<string, unknown>;
  /** The voter's id for voter reports and contact outcomes. */
  voterId?: string;
  /** What the member sees: "Ya votó: Ana Pérez". */
  label: string;
  createdAt: string;
  state: OutboxState;
  /** Why the server refused it, or the conflict it found. */
  reason?: string;
  attempts: number;
  /** ms since the epoch: not sent before this (backoff after a failure). */
  nextAttemptAt: number;
  /** ms since the epoch: until then the member may take the report back ("Deshacer") and it is not sent, not even by "Enviar ahora". */
  holdUntil?: number;
  /** An incident's photo, already compressed on the phone; dropped once the server has it. */
  photo?: Blob;
  /** The incident's id once the server recorded it: a retry then sends only the photo. */
  incidentId?: string;
}

const DB_NAME = 'comando-brigada';
const OUTBOX = 'outbox';
const CACHE = 'cache';

let opened: Promise<IDBDatabase> | undefined;

function open(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore(OUTBOX, { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
      db.createObjectStore(CACHE);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB unavailable'));
  });
  return opened;
}

/** Runs one request in its own transaction and waits for the transaction to commit (durable, not just queued). */
async function run<T>(store: string, mode: IDBTransactionMode, make: (objects: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  return new Promise<T>((resolve, reject) => {
    const transaction = db.transaction(store, mode, { durability: 'strict' });
    const request = make(transaction.objectStore(store));
    transaction.oncomplete = () => resolve(request.result);
    transaction.onerror = () => reject(transaction.error ?? request.error ?? new Error('IndexedDB failed'));
    transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB aborted'));
  });
}

/** The storage is full: the caller must say the report was not saved. */
export function isQuotaError(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'QuotaExceededError' || error.name === 'NS_ERROR_DOM_QUOTA_REACHED');
}

export const outbox = {
  put: (item: OutboxItem) => run(OUTBOX, 'readwrite', (objects) => objects.put(item)).then(() => undefined),
  delete: (id: string) => run(OUTBOX, 'readwrite', (objects) => objects.delete(id)).then(() => undefined),
  all: async (): Promise<OutboxItem[]> => (await run<OutboxItem[]>(OUTBOX, 'readonly', (objects) => objects.index('createdAt').getAll())).reverse(),
  /** Sent items older than a day are dropped; refused and conflicting ones stay until the member reads them. */
  prune: async (): Promise<void> => {
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    for (const item of await outbox.all()) if (item.state === 'sent' && item.createdAt < dayAgo) await outbox.delete(item.id);
  },
};

export const cache = {
  get: <T>(key: string) => run<T | undefined>(CACHE, 'readonly', (objects) => objects.get(key) as IDBRequest<T | undefined>),
  set: (key: string, value: unknown) => run(CACHE, 'readwrite', (objects) => objects.put(value, key)).then(() => undefined),
};
