/**
 * A token bucket in its GCRA form: each caller reserves the next slot, `1 / rate` apart, with up to
 * `burst` slots usable at once after a quiet spell. Reservations are handed out in call order, so
 * concurrent senders share the rate fairly without polling.
 */
export class TokenBucket {
  private readonly intervalMs: number;
  private theoreticalArrival = 0;
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; resolve: (ok: boolean) => void }>();
  private cancelled = false;

  constructor(
    ratePerSecond: number,
    private readonly burst: number,
  ) {
    this.intervalMs = 1000 / ratePerSecond;
  }

  /** Resolves true when the caller may send, false if the bucket was cancelled meanwhile. */
  take(): Promise<boolean> {
    if (this.cancelled) return Promise.resolve(false);
    const now = performance.now();
    this.theoreticalArrival = Math.max(this.theoreticalArrival, now - (this.burst - 1) * this.intervalMs);
    const waitMs = this.theoreticalArrival - now;
    this.theoreticalArrival += this.intervalMs;
    if (waitMs <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve(!this.cancelled);
        }, waitMs),
        resolve,
      };
      this.sleepers.add(sleeper);
    });
  }

  /** Nothing goes out for `ms` (the provider said we are too fast). */
  pause(ms: number): void {
    this.theoreticalArrival = Math.max(this.theoreticalArrival, performance.now() + ms);
  }

  cancel(): void {
    this.cancelled = true;
    for (const sleeper of this.sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.resolve(false);
    }
    this.sleepers.clear();
  }
}
