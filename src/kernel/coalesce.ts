import type { Histogram } from 'prom-client';
import type { Metrics } from './metrics';

/** What a batch answers for an item that must go again in a later batch (it collided with an earlier one). */
export const AGAIN: unique symbol = Symbol('again');

export type BatchAnswer<O> = O | typeof AGAIN;

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
  /** The caller stopped waiting before the item was sent (or sent again). */
  signal: AbortSignal | undefined;
  /** performance.now() at submit (or when sent back to the queue), for the wait metric. */
  queuedAt: number;
}

export interface CoalescerOptions {
  /** The most items one batch carries. */
  maxBatch: number;
  /** How many batches may be in flight at once; what arrives meanwhile waits for the next. */
  concurrency: number;
  /**
   * How long (ms) an item that finds nothing in flight waits for others before its batch leaves;
   * default 0, the next turn of the event loop. At a steady trickle a batch costs its round trip
   * and the wake-ups of both ends whatever its size, so a short wait makes one batch of several.
   */
  lingerMs?: number;
  /** Reports the queue's depth and each item's wait under this name (`comando_coalescer_*`). */
  metrics?: { registry: Metrics; name: string };
}

/**
 * Single calls that arrive together go out as one batch: `submit(item)` queues the item, and a
 * batch leaves on the next turn of the event loop (or after `lingerMs`), so every call made in the
 * same I/O round joins it. With `concurrency` batches in flight, new items wait and leave together
 * when one returns: under load a batch carries what arrived during the last round trip, and with
 * no load an item waits for nothing but that turn (or the linger). `run` answers one value per
 * item, in order, or `AGAIN` for an item to put first in the next batch. A batch that fails is
 * retried item by item, so one bad item fails alone. An item submitted with a signal is withdrawn
 * when it aborts while the item waits to be sent (in the queue, for its turn again, for its turn
 * alone), its promise rejected with the signal's reason; one already in a batch gets its answer.
 */
export class Coalescer<I, O> {
  private queue: Waiting<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private lingering: NodeJS.Timeout | undefined;
  private readonly waits: Histogram.Internal<'coalescer'> | undefined;

  constructor(
    private readonly run: (items: I[]) => Promise<BatchAnswer<O>[]>,
    private readonly options: CoalescerOptions,
  ) {
    if (options.metrics) {
      const { registry, name } = options.metrics;
      registry.trackCoalescer(name, () => this.queue.length);
      this.waits = registry.coalescerWait.labels(name);
    }
  }

  submit(item: I, signal?: AbortSignal): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiting: Waiting<I, O> = { item, resolve, reject, signal, queuedAt: this.waits ? performance.now() : 0 };
      if (signal) {
        const withdraw = () => {
          const index = this.queue.indexOf(waiting);
          if (index < 0) return;
          this.queue.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', withdraw, { once: true });
        const done = () => signal.removeEventListener('abort', withdraw);
        waiting.resolve = (value) => {
          done();
          resolve(value);
        };
        waiting.reject = (error) => {
          done();
          reject(error);
        };
      }
      this.queue.push(waiting);
      this.schedule(this.inFlight === 0 ? (this.options.lingerMs ?? 0) : 0);
    });
  }

  /** Starts a batch after `waitMs` (0: at the next turn); a batch that fills up leaves at once. */
  private schedule(waitMs = 0): void {
    if (this.lingering && this.queue.length >= this.options.maxBatch) {
      clearTimeout(this.lingering);
      this.lingering = undefined;
      this.scheduled = false;
    }
    if (this.scheduled || this.inFlight >= this.options.concurrency || this.queue.length === 0) return;
    this.scheduled = true;
    const start = () => {
      this.lingering = undefined;
      this.scheduled = false;
      this.startBatch();
    };
    if (waitMs > 0 && this.queue.length < this.options.maxBatch) this.lingering = setTimeout(start, waitMs);
    else setImmediate(start);
  }

  /** As many batches as the queue fills, up to the concurrency. */
  private startBatch(): void {
    while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      if (this.waits) {
        const now = performance.now();
        for (const waiting of batch) this.waits.observe((now - waiting.queuedAt) / 1000);
      }
      this.inFlight++;
      void this.settle(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    let answers: BatchAnswer<O>[];
    try {
      answers = await this.run(batch.map((waiting) => waiting.item));
      if (answers.length !== batch.length) throw new Error(`a batch of ${batch.length} got ${answers.length} answers`);
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else for (const waiting of batch) await this.alone(waiting);
      return;
    }
    const again: Waiting<I, O>[] = [];
    batch.forEach((waiting, index) => {
      const answer = answers[index]!;
      // The first item of a batch has nothing before it to wait for: AGAIN there would loop forever.
      if (answer === AGAIN && index === 0) waiting.reject(new Error('the first item of a batch was asked to go again'));
      else if (answer === AGAIN && waiting.signal?.aborted) waiting.reject(waiting.signal.reason);
      else if (answer === AGAIN) again.push(waiting);
      else waiting.resolve(answer);
    });
    if (again.length) {
      const now = performance.now();
      for (const waiting of again) waiting.queuedAt = now;
      this.queue.unshift(...again);
    }
  }

  /** One item of a failed batch, by itself: its own answer or its own error. */
  private async alone(waiting: Waiting<I, O>): Promise<void> {
    if (waiting.signal?.aborted) return waiting.reject(waiting.signal.reason);
    try {
      const [answer] = await this.run([waiting.item]);
      if (answer === AGAIN || answer === undefined) throw new Error('an item alone got no answer');
      waiting.resolve(answer);
    } catch (error) {
      waiting.reject(error);
    }
  }
}
