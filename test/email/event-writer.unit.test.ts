import type { AppDeps } from '../../src/kernel/context';
import { EventWriter } from '../../src/modules/email/email.tracking';
import { until } from '../helpers/wait';

/** A database whose inserts finish when the test says so. */
function heldDatabase() {
  const releases: (() => void)[] = [];
  const db = { write: () => new Promise<{ count: number; rows: never[] }>((resolve) => releases.push(() => resolve({ count: 1, rows: [] }))) };
  return { db, releases };
}

const turns = async (n: number) => {
  for (let turn = 0; turn < n; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the email event writer', () => {
  it('flushes only once a batch already being written is committed, not just what is still queued', async () => {
    const { db, releases } = heldDatabase();
    const logger = { warn: jest.fn() };
    const writer = new EventWriter({ db, logger, config: { email: { machineOpenSeconds: 5 } } } as unknown as AppDeps);
    writer.enqueue('1', 'open', null, false);
    // The linger timer hands the batch to the database: the queue is empty, the insert in flight.
    await until(() => releases.length === 1, 5000, 'the first insert');
    let flushed = false;
    const flushing = writer.flush().then(() => (flushed = true));
    await turns(20);
    expect(flushed).toBe(false);
    releases[0]!();
    await flushing;
    expect(flushed).toBe(true);
    // Shutdown is a flush: the same holds for close().
    writer.enqueue('2', 'open', null, false);
    await until(() => releases.length === 2, 5000, 'the second insert');
    let closed = false;
    const closing = writer.close().then(() => (closed = true));
    await turns(20);
    expect(closed).toBe(false);
    releases[1]!();
    await closing;
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
