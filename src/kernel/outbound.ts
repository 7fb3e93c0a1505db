import type { Metrics } from './metrics';
import type { Logger } from 'pino';
import { safeErrorFields } from './http/problem';
import type { Realtime } from './realtime';

/**
 * The outbound engine: one pipeline for every channel that delivers messages to people (WhatsApp,
 * email, whatever comes next). A channel is an adapter: a claim statement, a send (the provider's
 * client), a settle statement and its settings. The rows are the list: a drain claims due rows
 * (FOR UPDATE SKIP LOCKED, marked `sending` in the same statement), sends each one at the
 * channel's pace, and writes each outcome as soon as its send returns, so that only messages
 * actually in flight are ever `sending` and a killed process leaves at most `concurrency` of them
 * in doubt. Retryable answers come back with exponential backoff and jitter up to a maximum of
 * attempts; a message in doubt is never sent again by the engine; a campaign whose sends keep
 * failing is paused instead of burning its list.
 */

/** What the engine needs of a claimed row; adapters add whatever their send needs. */
export interface OutboundMessage {
  id: string;
  /** Messages of a campaign count towards its consecutive errors (and can pause it). */
  campaignId: string | null;
  /** The attempt this claim is, 1 for the first (the claim statement counts it). */
  attempt: number;
}

export interface Backoff {
  /** The first retry's delay. */
  baseMs: number;
  /** Each further retry waits this many times longer; 2 unless said. */
  factor?: number;
  maxMs: number;
  /** ± this share of the delay at random, so retries of one burst do not come back together; 0.2 unless said. */
  jitter?: number;
}

/** The delay before attempt `attempt + 1`: base·factor^(attempt−1), capped, then jittered. */
export function backoffMs(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const { baseMs, factor = 2, maxMs, jitter = 0.2 } = backoff;
  const plain = Math.min(maxMs, baseMs * factor ** Math.max(0, attempt - 1));
  return Math.round(plain * (1 - jitter + 2 * jitter * random()));
}

/**
 * What became of one send. `sent`: the provider took it. `failed`: refused for good, never tried
 * again. `retry`: the answer proves nothing went out (a rate limit, a refused connection); tried
 * again after a backoff. `in_doubt`: it may have gone out (a timeout after the request left); it
 * is never sent again automatically. `throttled` marks a retry that only says "slower" (neither
 * a success nor an error), `slowDownMs` stops all sends for that long.
 */
export type Outcome<Detail = unknown> =
  | { kind: 'sent'; detail?: Detail }
  | { kind: 'failed'; reason: string; detail?: Detail }
  | { kind: 'retry'; reason: string; detail?: Detail; throttled?: boolean; backoff?: Backoff; slowDownMs?: number }
  | { kind: 'in_doubt'; reason: string; detail?: Detail };

/**
 * What the adapter writes for a message. `released`: claimed but never handed to the provider
 * (the campaign was paused, the process is stopping): back to the queue, the attempt not counted.
 */
export type Settlement<M, Detail = unknown> =
  | { message: M; kind: 'sent'; detail?: Detail }
  | { message: M; kind: 'failed'; reason: string; detail?: Detail }
  | { message: M; kind: 'retry'; reason: string; at: Date; detail?: Detail }
  | { message: M; kind: 'in_doubt'; reason: string; detail?: Detail }
  | { message: M; kind: 'released' };

export interface ChannelSettings {
  /** Messages in flight at once: also the most that can be in doubt after a crash. */
  concurrency: number;
  /** Messages per second (a token bucket), and the burst it tolerates; null: no pacing. */
  ratePerSecond: number | null;
  burst?: number;
  /** Tries before a retryable message is failed. */
  maxAttempts: number;
  /** Retry delays unless an outcome brings its own. */
  backoff: Backoff;
  /** Consecutive provider errors of a campaign that pause it; 0 never pauses. */
  pauseAfterErrors: number;
}

/**
 * A limit on some of a channel's messages over time (WhatsApp's messaging tier), counted from the
 * rows: `remaining` is re-read every `refreshMs`, the engine counts down locally in between.
 */
export interface Quota<M> {
  /** How many more messages that count may go now; null: no limit. */
  remaining(): Promise<number | null>;
  counts(message: M): boolean;
  /** Told (once per re-read at most) that claims go on without counted messages because the quota is used up. */
  exhausted?(): Promise<void>;
  refreshMs?: number;
}

export interface ClaimRequest {
  limit: number;
  /** How many messages that count against the quota may be among them; null: no quota. 0: none. */
  quota: number | null;
}

export interface Claimed<M> {
  /** Marked `sending`, to be sent now. */
  messages: M[];
  /** Settled by the claim itself (no consent at send time, say): work done, nothing to send. */
  skipped: number;
}

/** A channel, as the engine drives it. */
export interface OutboundAdapter<M extends OutboundMessage, Detail = unknown> {
  /** For logs and the pause event. */
  readonly channel: string;
  /** The realtime room told when a campaign is paused. */
  readonly room: string;
  readonly settings: ChannelSettings;
  /**
   * Runs `work` only while holding the channel's lock (one sender for a phone number's rate);
   * false, without running it, when another process holds it. Without it every process drains.
   */
  exclusive?(work: () => Promise<void>): Promise<boolean>;
  /** Rows left `sending` by a process that died become `in_doubt` (never sent again); how many. */
  releaseOrphans(): Promise<number>;
  /** Whether any row is due now. */
  hasDueWork(): Promise<boolean>;
  /** Claims up to `limit` due rows, marking them `sending` in the same statement. */
  claim(request: ClaimRequest): Promise<Claimed<M>>;
  /** Loads what the sends of a claimed batch need (templates, a campaign's content). */
  prepare?(messages: M[]): Promise<void>;
  /** Hands one message to the provider. A throw counts as in doubt. */
  send(message: M): Promise<Outcome<Detail>>;
  /** Writes outcomes (several at most as they came in), only on rows still `sending` (or in doubt, for a late answer). */
  settle(settlements: Settlement<M, Detail>[]): Promise<void>;
  /**
   * `settle`, and in the same statement a claim of up to `request.limit` rows for the slots those
   * outcomes free: a slot then waits one round trip between two sends, not two, and the rows
   * marked `sending` never outnumber the slots. Optional; without it the engine claims apart.
   */
  settleAndClaim?(settlements: Settlement<M, Detail>[], request: ClaimRequest): Promise<Claimed<M>>;
  /** Pauses a sending campaign with this notice for staff; false when it was not sending. */
  pause(campaignId: string, notice: string): Promise<boolean>;
  quota?: Quota<M>;
  /** Moves campaigns on (completed, next phase): every few seconds while draining, and with `drained` at its end. */
  housekeeping?(drained: boolean): Promise<void>;
}

/** A campaign paused by the engine, for the war room. */
export interface OutboundPausedEvent {
  channel: string;
  campaignId: string;
  consecutiveErrors: number;
  notice: string;
}

declare module './realtime' {
  interface RealtimeEvents {
    'outbound:paused': OutboundPausedEvent;
  }
}

/**
 * A token bucket that hands its tokens out one caller at a time, in call order: tokens refill at
 * `ratePerSecond` up to `capacity`, and a caller waits for a whole token. A late timer therefore
 * never releases a burst bigger than the capacity, so in any second at most rate + capacity
 * messages leave.
 */
export class TokenBucket {
  private readonly intervalMs: number;
  private tokens = 0;
  private refilledAt = performance.now();
  private pausedUntil = 0;
  private readonly waiting: { resolve: (ok: boolean) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private cancelled = false;

  constructor(
    ratePerSecond: number,
    private readonly capacity: number,
  ) {
    this.intervalMs = 1000 / ratePerSecond;
  }

  /** Resolves true when the caller may send, false if the bucket was cancelled or `signal` aborted meanwhile. */
  take(signal?: AbortSignal): Promise<boolean> {
    if (this.cancelled || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry = { resolve };
      this.waiting.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.waiting.indexOf(entry);
          if (index < 0) return;
          this.waiting.splice(index, 1);
          resolve(false);
        },
        { once: true },
      );
      this.pump();
    });
  }

  /** Nothing goes out for `ms` (the provider said we are too fast). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, performance.now() + ms);
    this.tokens = 0;
  }

  cancel(): void {
    this.cancelled = true;
    if (this.timer) clearTimeout(this.timer);
    for (const entry of this.waiting.splice(0)) entry.resolve(false);
  }

  private pump(): void {
    if (this.timer || this.cancelled) return;
    while (this.waiting.length) {
      const now = performance.now();
      if (now < this.pausedUntil) return this.wake(this.pausedUntil - now);
      this.tokens = Math.min(this.capacity, this.tokens + (now - Math.max(this.refilledAt, this.pausedUntil)) / this.intervalMs);
      this.refilledAt = now;
      if (this.tokens < 1) return this.wake((1 - this.tokens) * this.intervalMs);
      this.tokens -= 1;
      this.waiting.shift()!.resolve(true);
    }
  }

  private wake(ms: number): void {
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(1, ms),
    );
  }
}

/** Counts messages in flight and lets the claimer wait for room. */
class Slots {
  private used = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly size: number) {}

  get free(): number {
    return this.size - this.used;
  }

  get busy(): number {
    return this.used;
  }

  take(): void {
    this.used++;
  }

  release(): void {
    this.used--;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once at least `wanted` slots are free, or nothing is in flight. */
  async room(wanted: number): Promise<void> {
    while (this.free < wanted && this.used > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async empty(): Promise<void> {
    await this.room(this.size);
  }
}

/** The settle writes that may wait on one another before a failing database is given up on. */
const SETTLE_RETRIES_MS = [200, 1000];
/** Outcomes written by one settle statement at most. */
const SETTLE_BATCH = 500;
const HOUSEKEEPING_MS = 2000;

/**
 * Writes outcomes as they come: the first one at once, and those answered while a write is
 * running all together in the next one, so an answered message waits for at most one statement.
 */
class Settler<M extends OutboundMessage, Detail> {
  private pending: { item: Settlement<M, Detail>; written: () => void }[] = [];
  private running = false;

  constructor(
    private readonly write: (items: Settlement<M, Detail>[]) => Promise<void>,
    private readonly logger: Logger,
    private readonly channel: string,
  ) {}

  add(item: Settlement<M, Detail>): Promise<void> {
    return new Promise((written) => {
      this.pending.push({ item, written });
      if (!this.running) void this.run();
    });
  }

  /** Writes until nothing is pending; `running` drops in the same step that finds the list empty, so no item added meanwhile is left behind. */
  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.pending.length) {
        const batch = this.pending.splice(0, SETTLE_BATCH);
        await this.writeWithRetries(batch.map((entry) => entry.item));
        for (const entry of batch) entry.written();
      }
    } finally {
      this.running = false;
    }
  }

  private async writeWithRetries(items: Settlement<M, Detail>[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.write(items);
        return;
      } catch (error) {
        const wait = SETTLE_RETRIES_MS[attempt];
        if (wait === undefined) {
          // The rows stay `sending` and become in doubt like a crash's: never sent twice.
          this.logger.error({ channel: this.channel, messages: items.length, ...safeErrorFields(error) }, 'outbound outcomes could not be recorded');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}

export interface OutboundDeps {
  logger: Logger;
  realtime: Pick<Realtime, 'publish'>;
  /** Sends by outcome and what the engine holds, per channel; absent in tests that drive an engine alone. */
  metrics?: Metrics;
}

/** One drain's slots and bookkeeping, shared by its claim loop and the writes that refill it. */
interface DrainState {
  slots: Slots;
  housekeptAt: number;
  progressed: boolean;
  /** A refill found nothing due: writes stop claiming until the loop finds work again. */
  queueEmpty: boolean;
}

/** A claimed message waiting for its turn; aborted when its campaign is paused meanwhile. */
interface Waiting<M> {
  message: M;
  release: AbortController;
}

/**
 * One channel's engine in one process. `drain()` sends until nothing is due; a call while it is
 * draining only notes that there is more (the running drain looks again before it stops), so a
 * job never waits behind another.
 */
export class OutboundEngine<M extends OutboundMessage, Detail = unknown> {
  private readonly bucket: TokenBucket | undefined;
  private readonly settler: Settler<M, Detail>;
  private readonly errorRuns = new Map<string, number>();
  private readonly waiting = new Set<Waiting<M>>();
  private quotaLeft: { value: number | null; until: number; toldExhausted: boolean } | undefined;
  /** The drain under way, which outcomes' writes refill; undefined between drains. */
  private drainState: DrainState | undefined;
  private active: Promise<void> | undefined;
  private wanted = false;
  private stopped = false;

  constructor(
    private readonly adapter: OutboundAdapter<M, Detail>,
    private readonly deps: OutboundDeps,
  ) {
    const { ratePerSecond, burst } = adapter.settings;
    if (ratePerSecond !== null) this.bucket = new TokenBucket(ratePerSecond, Math.max(1, burst ?? 1));
    this.settler = new Settler((items) => this.write(items), deps.logger, adapter.channel);
    deps.metrics?.trackOutbound(adapter.channel, () => ({ waiting: this.waiting.size, inFlight: (this.drainState?.slots.busy ?? 0) - this.waiting.size }));
  }

  drain(): Promise<void> {
    this.wanted = true;
    if (this.active || this.stopped) return Promise.resolve();
    this.active = this.run().finally(() => {
      this.active = undefined;
    });
    return this.active;
  }

  get busy(): boolean {
    return this.active !== undefined;
  }

  /** Waits until no drain is under way (one that starts meanwhile included); says whether it had to wait. */
  async idle(): Promise<boolean> {
    let waited = false;
    while (this.active) {
      waited = true;
      await this.active.catch(() => undefined);
    }
    return waited;
  }

  /** Stops claiming; messages waiting for their turn go back to the queue, those in flight finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.bucket?.cancel();
    await this.active?.catch(() => undefined);
  }

  hasDueWork(): Promise<boolean> {
    return this.adapter.hasDueWork();
  }

  private async run(): Promise<void> {
    while (this.wanted && !this.stopped) {
      this.wanted = false;
      let progressed = false;
      const work = async () => {
        progressed = await this.pump();
      };
      const ran = this.adapter.exclusive ? await this.adapter.exclusive(work) : (await work(), true);
      // Another process is sending; it looks for work again after it lets go of the lock.
      if (!ran) return;
      // Work that is due but could not be claimed (a quota used up) waits for the next call, not a busy loop.
      if (progressed && !this.stopped && (await this.adapter.hasDueWork())) this.wanted = true;
    }
  }

  /**
   * Claims as slots free up, until a claim finds nothing; returns once every claimed message is
   * settled, with whether anything was claimed.
   */
  private async pump(): Promise<boolean> {
    const { adapter } = this;
    const orphans = await adapter.releaseOrphans();
    if (orphans) this.deps.logger.warn({ channel: adapter.channel, inDoubt: orphans }, 'messages left in flight by a stopped process are in doubt');
    this.quotaLeft = undefined;
    const slots = new Slots(adapter.settings.concurrency);
    const drain: DrainState = { slots, housekeptAt: Date.now(), progressed: false, queueEmpty: false };
    this.drainState = drain;
    // Claims of a few rows at a time keep the database's share small at high rates.
    const batch = Math.max(1, Math.ceil(slots.size / 4));
    try {
      while (!this.stopped) {
        await slots.room(batch);
        if (this.stopped) break;
        const quota = await this.reserveQuota(slots.free);
        const limit = quota === null || quota === 0 ? slots.free : quota;
        const claimed = await adapter.claim({ limit, quota });
        if (quota === 0) await this.tellQuotaExhausted();
        if (claimed.messages.length === 0 && claimed.skipped === 0) break;
        drain.queueEmpty = false;
        await this.start(drain, claimed);
        await this.housekeepEvery(drain);
      }
    } finally {
      await slots.empty();
      this.drainState = undefined;
    }
    await adapter.housekeeping?.(true);
    return drain.progressed;
  }

  /**
   * Sends claimed messages, each in a slot of its own (prepared first; given back if that fails).
   * From inside a write, the give-back is not waited for: it is written by the writer that is waiting on this call.
   */
  private async start(drain: DrainState, claimed: Claimed<M>, insideWrite = false): Promise<void> {
    const { adapter } = this;
    drain.progressed = true;
    this.countQuota(claimed.messages);
    if (claimed.messages.length && adapter.prepare) {
      try {
        await adapter.prepare(claimed.messages);
      } catch (error) {
        // Nothing of them was sent: back to the queue rather than left to be in doubt.
        const released = Promise.all(claimed.messages.map((message) => this.settler.add({ message, kind: 'released' })));
        if (!insideWrite) await released;
        throw error;
      }
    }
    for (const message of claimed.messages) {
      drain.slots.take();
      void this.launch(message)
        .catch((error: unknown) => this.deps.logger.error({ channel: adapter.channel, messageId: message.id, ...safeErrorFields(error) }, 'outbound send failed unexpectedly'))
        .finally(() => drain.slots.release());
    }
  }

  private async housekeepEvery(drain: DrainState): Promise<void> {
    if (Date.now() - drain.housekeptAt <= HOUSEKEEPING_MS) return;
    drain.housekeptAt = Date.now();
    await this.adapter.housekeeping?.(false);
  }

  /**
   * Writes outcomes. During a drain, with an adapter that can, the same statement claims as many
   * rows as the outcomes free slots, and they start at once: the new rows take their slots before
   * the settled ones give theirs back, so slots never outnumber the rows in flight.
   */
  private async write(items: Settlement<M, Detail>[]): Promise<void> {
    const drain = this.drainState;
    if (!drain || !this.adapter.settleAndClaim || this.stopped || drain.queueEmpty) return this.adapter.settle(items);
    const quota = await this.reserveQuota(items.length);
    const limit = quota === null || quota === 0 ? items.length : quota;
    const claimed = await this.adapter.settleAndClaim(items, { limit, quota });
    if (quota === 0) await this.tellQuotaExhausted();
    // Nothing more to claim for now: the drain's own loop claims again once slots are free, and ends when it finds nothing.
    if (claimed.messages.length === 0 && claimed.skipped === 0) drain.queueEmpty = true;
    if (this.stopped) {
      for (const message of claimed.messages) void this.settler.add({ message, kind: 'released' });
      return;
    }
    try {
      await this.start(drain, claimed, true);
    } catch (error) {
      this.deps.logger.error({ channel: this.adapter.channel, messages: claimed.messages.length, ...safeErrorFields(error) }, 'outbound batch could not be prepared');
    }
    await this.housekeepEvery(drain);
  }

  /** Waits for its turn, sends, and returns once the outcome is written. Never throws. */
  private async launch(message: M): Promise<void> {
    const entry: Waiting<M> = { message, release: new AbortController() };
    this.waiting.add(entry);
    const go = this.bucket ? await this.bucket.take(entry.release.signal) : !this.stopped;
    this.waiting.delete(entry);
    if (!go || entry.release.signal.aborted) {
      this.giveBackQuota(message);
      await this.settler.add({ message, kind: 'released' });
      return;
    }
    let outcome: Outcome<Detail>;
    try {
      outcome = await this.adapter.send(message);
    } catch (error) {
      this.deps.logger.error({ channel: this.adapter.channel, messageId: message.id, ...safeErrorFields(error) }, 'outbound send threw');
      outcome = { kind: 'in_doubt', reason: 'unexpected error' };
    }
    const settlement = this.settlementOf(message, outcome);
    if (settlement.kind === 'failed' || settlement.kind === 'retry') this.giveBackQuota(message);
    // Before the outcome is written: that write may claim the next messages, and a campaign this
    // answer pauses must not be among them.
    await this.countErrors(message, outcome);
    this.deps.metrics?.outboundSends.inc({ channel: this.adapter.channel, outcome: settlement.kind });
    await this.settler.add(settlement);
  }

  private settlementOf(message: M, outcome: Outcome<Detail>): Settlement<M, Detail> {
    const detail = outcome.detail === undefined ? {} : { detail: outcome.detail };
    switch (outcome.kind) {
      case 'sent':
        return { message, kind: 'sent', ...detail };
      case 'failed':
        return { message, kind: 'failed', reason: outcome.reason, ...detail };
      case 'in_doubt':
        return { message, kind: 'in_doubt', reason: outcome.reason, ...detail };
      case 'retry': {
        if (outcome.slowDownMs) this.bucket?.pause(outcome.slowDownMs);
        const { maxAttempts, backoff } = this.adapter.settings;
        if (message.attempt >= maxAttempts) return { message, kind: 'failed', reason: `gave up after ${message.attempt} attempts: ${outcome.reason}`, ...detail };
        return { message, kind: 'retry', reason: outcome.reason, at: new Date(Date.now() + backoffMs(message.attempt, outcome.backoff ?? backoff)), ...detail };
      }
    }
  }

  /**
   * A campaign's consecutive provider errors, in the order answers come: a success starts the
   * count again, a throttle (a "slower", not an error) leaves it; at the threshold the campaign
   * is paused, and its messages still waiting for their turn go back to the queue.
   */
  private async countErrors(message: M, outcome: Outcome<Detail>): Promise<void> {
    const campaignId = message.campaignId;
    const threshold = this.adapter.settings.pauseAfterErrors;
    if (campaignId === null || threshold <= 0) return;
    if (outcome.kind === 'sent') {
      this.errorRuns.delete(campaignId);
      return;
    }
    if (outcome.kind === 'retry' && outcome.throttled) return;
    const errors = (this.errorRuns.get(campaignId) ?? 0) + 1;
    if (errors < threshold) {
      this.errorRuns.set(campaignId, errors);
      return;
    }
    this.errorRuns.delete(campaignId);
    for (const entry of this.waiting) if (entry.message.campaignId === campaignId) entry.release.abort();
    const notice = `Paused: ${errors} sends in a row failed (last: ${outcome.reason}). Check the provider's settings and account, then resume the campaign.`.slice(0, 300);
    try {
      if (!(await this.adapter.pause(campaignId, notice))) return;
    } catch (error) {
      this.deps.logger.error({ channel: this.adapter.channel, campaignId, ...safeErrorFields(error) }, 'campaign could not be paused');
      return;
    }
    this.deps.logger.warn({ channel: this.adapter.channel, campaignId, consecutiveErrors: errors }, 'campaign paused after consecutive provider errors');
    this.deps.realtime.publish(this.adapter.room, 'outbound:paused', { channel: this.adapter.channel, campaignId, consecutiveErrors: errors, notice });
  }

  private async reserveQuota(wanted: number): Promise<number | null> {
    const quota = this.adapter.quota;
    if (!quota) return null;
    if (!this.quotaLeft || Date.now() > this.quotaLeft.until) {
      this.quotaLeft = { value: await quota.remaining(), until: Date.now() + (quota.refreshMs ?? 5000), toldExhausted: false };
    }
    return this.quotaLeft.value === null ? null : Math.max(0, Math.min(wanted, this.quotaLeft.value));
  }

  private countQuota(messages: M[]): void {
    const quota = this.adapter.quota;
    if (!quota || !this.quotaLeft || this.quotaLeft.value === null) return;
    for (const message of messages) if (quota.counts(message)) this.quotaLeft.value--;
  }

  /** A counted message that did not reach anyone gives its place back until the next re-read. */
  private giveBackQuota(message: M): void {
    if (this.adapter.quota?.counts(message) && this.quotaLeft && this.quotaLeft.value !== null) this.quotaLeft.value++;
  }

  private async tellQuotaExhausted(): Promise<void> {
    if (!this.quotaLeft || this.quotaLeft.toldExhausted) return;
    this.quotaLeft.toldExhausted = true;
    await this.adapter.quota?.exhausted?.();
  }
}
