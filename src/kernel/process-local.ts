import type { Logger } from 'pino';
import { safeErrorFields } from './http/problem';

/** What shutdown calls on a value that has it. */
interface Closable {
  close(): void | Promise<void>;
}

const closable = (value: object): value is Closable => typeof (value as Partial<Closable>).close === 'function';

/** A value with background work of its own (a sender's drain), which tests and shutdown can wait out. */
interface Settling {
  idle(): Promise<boolean>;
}

const settling = (value: object): value is Settling => typeof (value as Partial<Settling>).idle === 'function';

/**
 * A module's state for this process (a provider client, a sender, a batching writer), declared
 * once with `processLocal(name, create)`, made on first use and owned by the process's
 * dependencies (`deps.local`): shutdown closes every one of them, newest first, after the
 * background work has stopped and before the database goes.
 */
export class ProcessLocal {
  private readonly values = new Map<string, object>();

  constructor(private readonly logger: Logger) {}

  get<T extends object>(name: string, create: () => T): T {
    let value = this.values.get(name) as T | undefined;
    if (!value) {
      value = create();
      this.values.set(name, value);
    }
    return value;
  }

  /** The value if it was made, without making it. */
  peek<T extends object>(name: string): T | undefined {
    return this.values.get(name) as T | undefined;
  }

  /** Waits until every value's background work is done; says whether any had to be waited for. */
  async idle(): Promise<boolean> {
    const waited = await Promise.all([...this.values.values()].filter(settling).map((value) => value.idle()));
    return waited.includes(true);
  }

  async closeAll(): Promise<void> {
    for (const [name, value] of [...this.values].reverse()) {
      try {
        if (closable(value)) await value.close();
      } catch (error) {
        this.logger.warn({ state: name, ...safeErrorFields(error) }, 'process state did not close cleanly');
      }
    }
    this.values.clear();
  }
}

export interface ProcessLocalAccessor<D, T> {
  /** The process's value, made on first use. */
  (deps: D): T;
  /** The process's value if something made it already (a shutdown step that must not make it). */
  ifMade(deps: D): T | undefined;
}

/** `const sender = processLocal('email.sender', (deps) => new Sender(deps))`; then `sender(deps)` anywhere in the module. */
export function processLocal<D extends { local: ProcessLocal }, T extends object>(name: string, create: (deps: D) => T): ProcessLocalAccessor<D, T> {
  const accessor = (deps: D) => deps.local.get(name, () => create(deps));
  return Object.assign(accessor, { ifMade: (deps: D) => deps.local.peek<T>(name) });
}
