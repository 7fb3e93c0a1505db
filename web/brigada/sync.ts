import { ApiError, NetworkError, clock, type Api } from '../lib/api';
import type { Incident, Problem, TurnoutAnswer, Voter } from '../lib/api-types';
import { outbox, type OutboxItem } from './store';

/** Reports per request: a dead zone's queue goes out in a few requests (the API takes up to 500). */
const BATCH = 100;
const MAX_BACKOFF_MS = 5 * 60_000;

/** Spanish for the API's refusal codes a member can meet. */
const reasons: Record<string, string> = {
  forbidden: 'No tiene permiso para reportar en este puesto o por este votante.',
  not_found: 'El votante o el puesto ya no existe.',
  future: 'La hora del teléfono está adelantada.',
  voter_claimed: 'Otra persona de la brigada lo tiene asignado.',
  validation_failed: 'El reporte no es válido.',
};

function reasonOf(code: string | undefined, message: string | undefined): string {
  return (code && reasons[code]) || message || 'El servidor no aceptó el reporte.';
}

/**
 * The next attempt after a failure: doubling from 2 s to 5 min, with jitter so phones do not retry
 * together, and no sooner than the server's `Retry-After` (a 503 `busy`: a station held up).
 */
function backoff(item: OutboxItem, retryAfterSeconds = 0): OutboxItem {
  const attempts = item.attempts + 1;
  const delay = Math.max(Math.min(MAX_BACKOFF_MS, 2000 * 2 ** (attempts - 1)) * (0.75 + Math.random() * 0.5), retryAfterSeconds * 1000);
  return { ...item, attempts, nextAttemptAt: Date.now() + delay };
}

export type SyncResult = 'done' | 'offline' | 'unauthorized';

/**
 * Sends what is due in the outbox. Turnout reports go in batches to POST /api/gotv/turnout, whose
 * clientReportId makes a resend harmless (contacts and incidents carry the item's id as clientId); a duplicate of a voter report is ours resent when the
 * voter's recorded vote time is ours, else a colleague (or a manager) reported them first: a
 * conflict the member is shown. A refusal is kept with its reason and not retried; a 5xx, a timeout
 * or no network is retried with backoff; an ended session stops the sending and keeps the queue.
 */
export async function syncOutbox(api: Api): Promise<SyncResult> {
  if (!navigator.onLine) return 'offline';
  const now = Date.now();
  const due = (await outbox.all()).filter((item) => item.state === 'pending' && item.nextAttemptAt <= now && (item.holdUntil ?? 0) <= now).reverse();
  const turnout = due.filter((item) => item.kind === 'voter' || item.kind === 'count');
  try {
    for (let i = 0; i < turnout.length; i += BATCH) await sendTurnout(api, turnout.slice(i, i + BATCH));
    for (const item of due.filter((candidate) => candidate.kind === 'contact' || candidate.kind === 'incident')) await sendOne(api, item);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return 'unauthorized';
    return 'offline';
  }
  return 'done';
}

async function sendPhoto(api: Api, item: OutboxItem, photo: Blob): Promise<void> {
  const { photo: _sent, ...rest } = item;
  try {
    await api.put(`/api/gotv/incidents/${item.incidentId}/photo`, photo);
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401 && error.status < 500 && error.status !== 429) {
      await outbox.put({ ...rest, state: 'rejected', reason: `El incidente se envió, pero la foto no: ${reasonOf(error.problem?.code, error.problem?.detail)}` });
      return;
    }
    throw error;
  }
  await outbox.put({ ...rest, state: 'sent' });
}

async function retryLater(items: OutboxItem[], error?: unknown): Promise<void> {
  const retryAfter = error instanceof ApiError ? error.retryAfter : undefined;
  for (const item of items) await outbox.put(backoff(item, retryAfter));
}

async function sendTurnout(api: Api, items: OutboxItem[]): Promise<void> {
  let answer: TurnoutAnswer;
  try {
    answer = await api.post<TurnoutAnswer>('/api/gotv/turnout', { reports: items.map((item) => item.body) });
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401 && error.status < 500 && error.status !== 429) {
      // Every item refused: the problem lists them as reports.<index> with "code: message".
      const byIndex = new Map((error.problem?.errors ?? []).map((entry) => [Number(entry.path.split('.')[1]), entry.message]));
      for (const [index, item] of items.entries()) {
        const [code, ...rest] = (byIndex.get(index) ?? '').split(': ');
        await outbox.put({ ...item, state: 'rejected', reason: reasonOf(code, rest.join(': ') || (error.problem as Problem | undefined)?.detail) });
      }
      return;
    }
    if (error instanceof ApiError && error.status === 401) throw error;
    // A 5xx (a 503 busy: a station held up, Retry-After given), a 429, a timeout or no network: kept, sent later with backoff.
    await retryLater(items, error);
    throw new NetworkError((error as Error).message);
  }
  const rejected = new Map(answer.rejected.map((entry) => [entry.index, entry]));
  for (const [index, item] of items.entries()) {
    const refusal = rejected.get(index);
    if (refusal) await outbox.put({ ...item, state: 'rejected', reason: reasonOf(refusal.code, refusal.message) });
    else if (answer.duplicates > 0 && item.kind === 'voter' && item.voterId) await outbox.put(await checkConflict(api, item));
    else await outbox.put({ ...item, state: 'sent' });
  }
}

/** Whether the voter's recorded vote is this report's (ours, resent) or someone else's (a conflict). */
async function checkConflict(api: Api, item: OutboxItem): Promise<OutboxItem> {
  const voter = await api.get<Voter>(`/api/gotv/voters/${item.voterId}`);
  const ours = typeof item.body.votedAt === 'string' && voter.votedAt !== null && Date.parse(voter.votedAt) === Date.parse(item.body.votedAt);
  if (ours || voter.votedAt === null) return { ...item, state: 'sent' };
  return { ...item, state: 'conflict', reason: `Ya estaba reportado como votante (${clock(new Date(voter.votedAt))}).` };
}

/**
 * A contact outcome or an incident; an incident's photo follows once the incident is recorded (its
 * id kept on the phone, so a retry sends only the photo). A refused photo leaves the incident sent.
 */
async function sendOne(api: Api, item: OutboxItem): Promise<void> {
  const path = item.kind === 'contact' ? `/api/gotv/voters/${item.voterId}/contacts` : '/api/gotv/incidents';
  try {
    if (item.kind === 'incident' && item.incidentId === undefined) {
      // The item's id is its clientId: a resend after a lost answer gets the first record back, not a second one.
      const incident = await api.post<Incident>(path, { ...item.body, clientId: item.id });
      item = { ...item, incidentId: incident.id };
      if (item.photo) await outbox.put(item);
    } else if (item.kind === 'contact') await api.post(path, { ...item.body, clientId: item.id });
    if (item.kind === 'incident' && item.photo) await sendPhoto(api, item, item.photo);
    else await outbox.put({ ...item, state: 'sent' });
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401 && error.status < 500 && error.status !== 429) {
      await outbox.put({ ...item, state: 'rejected', reason: reasonOf(error.problem?.code, error.problem?.detail) });
      return;
    }
    if (error instanceof ApiError && error.status === 401) throw error;
    await retryLater([item], error);
    throw new NetworkError((error as Error).message);
  }
}
