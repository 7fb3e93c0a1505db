import { createHmac } from 'node:crypto';
import { isbot } from 'isbot';
import type { AppDeps } from '../../kernel/context';
import { processLocal } from '../../kernel/process-local';
import { clickTarget, insertTrackingEvents, lockRecipient, recordUnsubscribeEvent } from './email.repository';
import { lockNoticeAddress } from './email.notices.repository';
import { safeErrorFields } from '../../kernel/http/problem';
import { hashIp } from '../../kernel/privacy';
import { withdrawConsent } from '../audience';
import type { EventKind } from './email.entities';
import { TrackingTokens } from './email.tracking-tokens';

/** One token signer per process, keyed from EMAIL_TRACKING_SECRET or derived from the signing secret. */
export const trackingTokens = processLocal(
  'email.tracking-tokens',
  (deps: AppDeps) => new TrackingTokens(deps.config.email.trackingSecret ?? createHmac('sha256', deps.secrets.ipHashKey).update('comando:email-tracking').digest()),
);

/**
 * Machine opens: privacy proxies and scanners fetching the pixel without a person reading.
 * Apple Mail Privacy Protection fetches with a bare "Mozilla/5.0"; scanners identify as bots.
 * Gmail's and Yahoo's image proxies fetch when the person opens the message: those count.
 * Opens within EMAIL_MACHINE_OPEN_SECONDS of delivery are also marked (pre-fetch on arrival).
 */
export function isMachineAgent(userAgent: string | undefined): boolean {
  const agent = (userAgent ?? '').trim();
  let verdict = agentVerdicts.get(agent);
  if (verdict === undefined) {
    verdict = /GoogleImageProxy|YahooMailProxy/i.test(agent) ? false : agent === '' || agent === 'Mozilla/5.0' || isbot(agent);
    // Mail clients send few distinct user agents: remember the verdicts, within bounds.
    if (agentVerdicts.size >= 2000) agentVerdicts.clear();
    agentVerdicts.set(agent, verdict);
  }
  return verdict;
}
const agentVerdicts = new Map<string, boolean>();

interface PendingEvent {
  recipientId: string;
  kind: EventKind;
  linkIndex: number | null;
  machine: boolean;
  /** Set by callers that wait for the write. */
  done?: () => void;
}

/**
 * Batched writes for tracking events. Events queue in memory and go to PostgreSQL as one
 * multi-row insert (stamped with the insert's time, at most LINGER_MS after the hit) when
 * LINGER_MS has passed since the first one queued, or at once when
 * BATCH_SIZE are waiting (at most two inserts at a time). The pixel answers without waiting for
 * its row (a crash loses at most the last LINGER_MS of opens); clicks and tests wait for the
 * commit. If the database is unreachable the queue stops at MAX_QUEUED and further events are
 * dropped and logged as a count: tracking never takes the process down with it.
 */
const LINGER_MS = 10;
const BATCH_SIZE = 1000;
const MAX_QUEUED = 50_000;

export class EventWriter {
  private queue: PendingEvent[] = [];
  /** Batches taken from the queue whose insert has not finished: a flush waits for them too. */
  private readonly writing = new Set<Promise<void>>();
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private dropped = 0;

  constructor(
    private readonly deps: AppDeps,
    private readonly maxConcurrent = 2,
  ) {}

  /** Queues an event without waiting for it (the pixel). */
  enqueue(recipientId: string, kind: EventKind, linkIndex: number | null, machine: boolean): PendingEvent | undefined {
    if (this.queue.length >= MAX_QUEUED) {
      if (this.dropped++ % 1000 === 0) this.deps.logger.warn({ dropped: this.dropped }, 'email tracking events dropped: the database is not keeping up');
      return undefined;
    }
    const event: PendingEvent = { recipientId, kind, linkIndex, machine };
    this.queue.push(event);
    if (this.queue.length >= BATCH_SIZE) this.kick();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.kick(), LINGER_MS);
      this.timer.unref();
    }
    return event;
  }

  /** Queues an event and resolves once its batch is written (or given up on, logged). */
  record(recipientId: string, kind: EventKind, linkIndex: number | null, machine: boolean): Promise<void> {
    const event = this.enqueue(recipientId, kind, linkIndex, machine);
    return event ? new Promise((resolve) => (event.done = resolve)) : Promise.resolve();
  }

  /** At shutdown: nothing the pixel answered for is left unwritten. */
  close(): Promise<void> {
    return this.flush();
  }

  /** Writes everything queued now; resolves when it and every batch already being written are committed. */
  async flush(): Promise<void> {
    const inFlight = [...this.writing];
    const pending = this.queue.map(
      (event) =>
        new Promise<void>((resolve) => {
          const done = event.done;
          event.done = () => {
            done?.();
            resolve();
          };
        }),
    );
    this.kick();
    await Promise.all([...pending, ...inFlight]);
  }

  private kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running < this.maxConcurrent && this.queue.length) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running++;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, BATCH_SIZE);
        const written = insertTrackingEvents(this.deps.db, batch, this.deps.config.email.machineOpenSeconds).then(
          () => undefined,
          (error: unknown) => {
            // Counted as lost rather than failing a redirect or showing a broken image.
            this.deps.logger.warn({ events: batch.length, ...safeErrorFields(error) }, 'email tracking events not recorded');
          },
        );
        this.writing.add(written);
        try {
          await written;
        } finally {
          this.writing.delete(written);
          for (const event of batch) event.done?.();
        }
      }
    } finally {
      this.running--;
    }
  }
}

/** The process's batched writer of opens and clicks; what it still holds at shutdown is written then. */
export const eventWriter = processLocal('email.event-writer', (deps: AppDeps) => new EventWriter(deps));

/** The URL the recipient's message had at that position, or undefined. */
export async function clickTargetUrl(deps: AppDeps, recipientId: string, linkIndex: number): Promise<string | undefined> {
  return clickTarget(deps.db, recipientId, linkIndex);
}

export interface UnsubscribeProof {
  ip: string;
  userAgent: string | undefined;
  method: 'one-click' | 'page';
}

/**
 * Opt-out through the audience module: every contact holding the address is opted out of email,
 * with a withdrawal record as proof (when, from which campaign, a keyed hash of the IP, the user
 * agent, which link), and the recipient's unsubscribe is counted once.
 * Returns false when the recipient does not exist.
 */
export async function unsubscribe(deps: AppDeps, recipientId: string, proof: UnsubscribeProof): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const recipient = await lockRecipient(tx, recipientId);
    if (!recipient) return false;
    await withdrawConsent(tx, { email: recipient.email }, 'email', {
      source: 'email_unsubscribe',
      sourceRef: recipient.campaign_id,
      evidence: proof.method === 'one-click' ? 'one-click unsubscribe (List-Unsubscribe-Post)' : 'unsubscribe page',
      ipHash: hashIp(deps.secrets.ipHashKey, proof.ip),
      userAgent: `${proof.method}; ${proof.userAgent ?? ''}`.slice(0, 300),
    });
    await recordUnsubscribeEvent(tx, recipient);
    return true;
  });
}

/**
 * The same opt-out from a notice's link (a reminder, an answer): every contact holding the address
 * the notice went to stops getting email. Returns false when the notice does not exist.
 */
export async function unsubscribeFromNotice(deps: AppDeps, noticeId: string, proof: UnsubscribeProof): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const notice = await lockNoticeAddress(tx, noticeId);
    if (!notice || notice.email.startsWith('erased:')) return false;
    await withdrawConsent(tx, { email: notice.email }, 'email', {
      source: 'email_unsubscribe',
      sourceRef: null,
      evidence: proof.method === 'one-click' ? 'one-click unsubscribe (List-Unsubscribe-Post) of a notice' : 'unsubscribe page of a notice',
      ipHash: hashIp(deps.secrets.ipHashKey, proof.ip),
      userAgent: `${proof.method}; ${proof.userAgent ?? ''}`.slice(0, 300),
    });
    return true;
  });
}
