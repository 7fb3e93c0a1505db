import pino from 'pino';
import { ProcessLocal, processLocal } from '../../src/kernel/process-local';

const logger = pino({ level: 'silent' });

describe('process-local state', () => {
  it('makes a value once per process, on first use, and shows it without making it', () => {
    let made = 0;
    const counter = processLocal('test.counter', () => ({ n: ++made }));
    const deps = { local: new ProcessLocal(logger) };
    expect(counter.ifMade(deps)).toBeUndefined();
    expect(counter(deps)).toBe(counter(deps));
    expect(made).toBe(1);
    expect(counter.ifMade(deps)).toEqual({ n: 1 });
    // Another process (another set of dependencies) has its own.
    expect(counter({ local: new ProcessLocal(logger) })).toEqual({ n: 2 });
  });

  it('closes every value at shutdown, newest first, past one that fails', async () => {
    const closed: string[] = [];
    const local = new ProcessLocal(logger);
    local.get('first', () => ({ close: () => void closed.push('first') }));
    local.get('plain', () => ({ value: 1 }));
    local.get('failing', () => ({
      close: () => {
        closed.push('failing');
        throw new Error('gone');
      },
    }));
    local.get('last', () => ({ close: async () => void closed.push('last') }));
    await local.closeAll();
    expect(closed).toEqual(['last', 'failing', 'first']);
    expect(local.peek('first')).toBeUndefined();
  });
});
