/** Why the figures are read again from REST: the first connection, a reconnection the server could not recover, its `resync`, or the periodic look. */
export type ReloadReason = 'connect' | 'reconnect' | 'resync' | 'reconcile';

/** A reason that says events may have been missed outweighs the periodic look when two are asked for at once. */
const weight: Record<ReloadReason, number> = { reconcile: 0, connect: 1, resync: 2, reconnect: 3 };

export interface ReloadTimers {
  set: (run: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
}

export interface ReloadOptions {
  /** Reads everything from REST and draws it; rejects when a request failed. */
  load: (reason: ReloadReason) => Promise<void>;
  /** A failure that no retry mends (the session ended: the sign-in takes over). */
  isFinal?: (error: unknown) => boolean;
  timers?: ReloadTimers;
  /** Wait before looking again when events arrived while the answers were on their way. */
  afterEventsMs?: number;
  /** Wait before trying again after a failed reload. */
  afterFailureMs?: number;
}

/**
 * When the war room reads its figures from REST: one reload at a time. A reload asked for while one
 * runs is not dropped: the running one may hold answers from before a reconnection (a stale
 * reconcile the server's restart cut short), so a fresh one, with the weightiest reason asked for,
 * starts as soon as it ends, whether it worked or failed. Events that arrived during a reload may or
 * may not be in its answers: a follow-up looks again shortly; a failed reload is retried shortly.
 */
export class ReloadController {
  private running: Promise<void> | undefined;
  private queued: ReloadReason | undefined;
  private eventsDuringLoad = false;
  private followUp: unknown;
  private readonly timers: ReloadTimers;

  constructor(private readonly options: ReloadOptions) {
    this.timers = options.timers ?? { set: (run, ms) => setTimeout(run, ms), clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>) };
  }

  get loading(): boolean {
    return this.running !== undefined;
  }

  /** Whether a follow-up reload is waiting on its timer. */
  get followUpScheduled(): boolean {
    return this.followUp !== undefined;
  }

  /** Reads the figures again now, or as soon as the reload running ends. Resolves when the figures asked for are drawn (or failed). */
  request(reason: ReloadReason): Promise<void> {
    if (this.running) {
      this.queued = this.queued && weight[this.queued] >= weight[reason] ? this.queued : reason;
      return this.running.then(() => this.running ?? Promise.resolve());
    }
    this.running = this.run(reason);
    return this.running;
  }

  /** A socket event arrived: if a reload is on its way, its answers may or may not hold it. */
  noteEvent(): void {
    if (this.running) this.eventsDuringLoad = true;
  }

  /** Stops the follow-up timer (the screen is going away). */
  stop(): void {
    if (this.followUp !== undefined) this.timers.clear(this.followUp);
    this.followUp = undefined;
    this.queued = undefined;
  }

  private async run(reason: ReloadReason): Promise<void> {
    this.eventsDuringLoad = false;
    let failed = false;
    try {
      await this.options.load(reason);
    } catch (error) {
      failed = !this.options.isFinal?.(error);
    }
    const next = this.queued;
    this.queued = undefined;
    if (next) {
      // Asked for while this one ran: a fresh reload at once, which also covers the events and the failure.
      this.running = this.run(next);
      return;
    }
    this.running = undefined;
    if (failed) this.scheduleFollowUp(this.options.afterFailureMs ?? 3000);
    else if (this.eventsDuringLoad) this.scheduleFollowUp(this.options.afterEventsMs ?? 2000);
  }

  private scheduleFollowUp(delayMs: number): void {
    if (this.followUp !== undefined) return;
    this.followUp = this.timers.set(() => {
      this.followUp = undefined;
      void this.request('reconcile');
    }, delayMs);
  }
}
