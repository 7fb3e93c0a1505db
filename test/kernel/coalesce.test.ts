import { AGAIN, Coalescer, type BatchAnswer } from '../../src/kernel/coalesce';

/** A batch runner that records what each batch carried and answers when released. */
function recordingRunner(answer: (items: number[]) => BatchAnswer<string>[] = (items) => items.map((item) => `done ${item}`)) {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const run = async (items: number[]) => {
    batches.push(items);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise<void>((resolve) => pending.push(resolve));
    inFlight--;
    return answer(items);
  };
  const releaseAll = async () => {
    while (pending.length) pending.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { run, batches, releaseAll, mostInFlight: () => mostInFlight };
}

async function settleEverything(releaseAll: () => Promise<void>, work: Promise<unknown>): Promise<void> {
  let done = false;
  void work.finally(() => (done = true));
  while (!done) await releaseAll();
}

describe('Coalescer', () => {
  it('sends the calls of one turn together, and what comes while batches are in flight in the next', async () => {
    const runner = recordingRunner();
    const coalescer = new Coalescer(runner.run, { maxBatch: 100, concurrency: 1 });
    const first = [1, 2, 3].map((item) => coalescer.submit(item));
    await new Promise((resolve) => setImmediate(resolve));
    // The first batch is in flight: these wait, and go as one batch when it returns.
    const later = [4, 5, 6, 7].map((item) => coalescer.submit(item));
    await settleEverything(runner.releaseAll, Promise.all([...first, ...later]));
    expect(runner.batches).toEqual([
      [1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect(await Promise.all([...first, ...later])).toEqual([1, 2, 3, 4, 5, 6, 7].map((item) => `done ${item}`));
  });

  it('with a linger, an item that finds nothing in flight waits for company; a full batch, or one behind a batch in flight, does not', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    try {
      const runner = recordingRunner();
      const coalescer = new Coalescer(runner.run, { maxBatch: 3, concurrency: 2, lingerMs: 10 });
      const all = [coalescer.submit(1)];
      await turn();
      jest.advanceTimersByTime(6);
      all.push(coalescer.submit(2));
      await turn();
      expect(runner.batches).toEqual([]);
      jest.advanceTimersByTime(4);
      expect(runner.batches).toEqual([[1, 2]]);
      // A batch in flight: the next leaves at the next turn, as without a linger.
      all.push(coalescer.submit(3));
      await turn();
      expect(runner.batches).toEqual([[1, 2], [3]]);
      await runner.releaseAll();
      // Waiting, and the batch fills up: it leaves at once.
      all.push(coalescer.submit(4));
      await turn();
      expect(runner.batches).toHaveLength(2);
      all.push(coalescer.submit(5), coalescer.submit(6));
      await turn();
      expect(runner.batches.at(-1)).toEqual([4, 5, 6]);
      await settleEverything(runner.releaseAll, Promise.all(all));
      expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5, 6].map((item) => `done ${item}`));
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps to its concurrency and batch size', async () => {
    const runner = recordingRunner();
    const coalescer = new Coalescer(runner.run, { maxBatch: 3, concurrency: 2 });
    const all = Array.from({ length: 10 }, (_, item) => coalescer.submit(item));
    await settleEverything(runner.releaseAll, Promise.all(all));
    expect(runner.mostInFlight()).toBe(2);
    expect(runner.batches.map((batch) => batch.length)).toEqual([3, 3, 3, 1]);
    expect(runner.batches.flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('puts an item answered AGAIN first in the next batch', async () => {
    let asked = 0;
    const runner = recordingRunner((items) => items.map((item) => (item === 2 && asked++ === 0 ? AGAIN : `done ${item}`)));
    const coalescer = new Coalescer(runner.run, { maxBatch: 100, concurrency: 1 });
    const first = [1, 2, 3].map((item) => coalescer.submit(item));
    await new Promise((resolve) => setImmediate(resolve));
    const later = coalescer.submit(4);
    await settleEverything(runner.releaseAll, Promise.all([...first, later]));
    expect(runner.batches).toEqual([
      [1, 2, 3],
      [2, 4],
    ]);
    expect(await first[1]).toBe('done 2');
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const batches: number[][] = [];
    const coalescer = new Coalescer(
      async (items: number[]) => {
        batches.push(items);
        if (items.includes(13)) throw new Error('thirteen');
        return items.map((item) => item * 2);
      },
      { maxBatch: 100, concurrency: 1 },
    );
    const results = await Promise.allSettled([12, 13, 14].map((item) => coalescer.submit(item)));
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([24, 'thirteen', 28]);
    expect(batches).toEqual([[12, 13, 14], [12], [13], [14]]);
  });

  it('withdraws an item whose signal aborts while it waits to be sent; one already sent gets its answer', async () => {
    const runner = recordingRunner();
    const coalescer = new Coalescer(runner.run, { maxBatch: 100, concurrency: 1 });
    const sent = new AbortController();
    const waiting = new AbortController();
    const first = coalescer.submit(1, sent.signal);
    await new Promise((resolve) => setImmediate(resolve));
    // The batch with 1 is in flight: 2 and 3 wait for the next one.
    const second = coalescer.submit(2, waiting.signal);
    const third = coalescer.submit(3);
    waiting.abort(new Error('gave up'));
    sent.abort(new Error('too late'));
    await expect(second).rejects.toThrow('gave up');
    await settleEverything(runner.releaseAll, Promise.all([first, third]));
    expect(await first).toBe('done 1');
    expect(await third).toBe('done 3');
    expect(runner.batches).toEqual([[1], [3]]);
    await expect(coalescer.submit(4, AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('does not retry alone, after its batch failed, an item whose caller stopped waiting', async () => {
    const batches: number[][] = [];
    const gaveUp = new AbortController();
    const coalescer = new Coalescer(
      async (items: number[]) => {
        batches.push(items);
        gaveUp.abort(new Error('gave up'));
        if (items.length > 1) throw new Error('the batch failed');
        return items.map((item) => item * 2);
      },
      { maxBatch: 100, concurrency: 1 },
    );
    const results = await Promise.allSettled([coalescer.submit(1), coalescer.submit(2, gaveUp.signal), coalescer.submit(3)]);
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([2, 'gave up', 6]);
    expect(batches).toEqual([[1, 2, 3], [1], [3]]);
  });

  it('fails the items of a batch whose answers do not match it', async () => {
    const coalescer = new Coalescer(async (): Promise<string[]> => [], { maxBatch: 100, concurrency: 1 });
    const results = await Promise.allSettled([1, 2].map((item) => coalescer.submit(item)));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });
});
