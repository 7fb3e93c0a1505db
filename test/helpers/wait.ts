/** What `until` hands back: the check's first answer that is neither false, null, undefined, 0 nor ''. */
export type Held<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Between two checks: short, since most checks are a query or a look at what a socket heard. */
const POLL_MS = 25;

/**
 * Checks `check` (a query, an HTTP call, a look at what a socket heard) until it holds and
 * returns what it answered: `await until(() => events.find(...))` is the event. The one way
 * tests wait for something to happen; to wait until nothing more will happen, see `settled()`.
 * A check that throws fails the wait at once (a child process that exited, say).
 */
export async function until<T>(check: () => T | Promise<T>, timeoutMs = 20_000, what = 'the condition'): Promise<Held<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Held<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
