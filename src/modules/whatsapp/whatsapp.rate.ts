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
  private readonly waiting: ((ok: boolean) => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private cancelled = false;

  constructor(
    ratePerSecond: number,
    private readonly capacity: number,
  ) {
    this.intervalMs = 1000 / ratePerSecond;
  }

  /** Resolves true when the caller may send, false if the bucket was cancelled meanwhile. */
  take(): Promise<boolean> {
    if (this.cancelled) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
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
    for (const resolve of this.waiting.splice(0)) resolve(false);
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
      this.waiting.shift()!(true);
    }
  }

  private wake(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(1, ms));
  }
}
