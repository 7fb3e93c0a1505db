import type { EntitySchema } from '@mikro-orm/core';
import type { ApiRouter } from './http/router';
import type { JobDefinition } from './jobs';
import type { RoomRule, SocketCommand } from './realtime';
import type { Logger } from 'pino';
import type { AppDeps } from './context';
import { safeErrorFields } from './http/problem';

/** What a module contributes to the process; src/modules/index.ts lists them all. */
export interface ModuleManifest {
  name: string;
  // Entity schemas of any shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entities: EntitySchema<any, any>[];
  routers?: ApiRouter[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  jobs?: JobDefinition<any>[];
  /** The rooms its sockets may join, and who may; built once the process's dependencies exist. */
  rooms?: (deps: AppDeps) => RoomRule[];
  /** Requests clients may send over their socket; built once the process's dependencies exist. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  socketCommands?: (deps: AppDeps) => SocketCommand<any>[];
  /**
   * Runs once in each process that consumes jobs, after the workers have started: the place to
   * re-enqueue unfinished work recorded in the database (jobs lost with Redis or a crash) and to
   * start work that keeps running beside the jobs (a sweeper, a simulator). A task it returns is
   * stopped at shutdown, before the workers close.
   */
  onWorkersStarted?: (deps: AppDeps) => Promise<BackgroundTask | void>;
}

export interface BackgroundTask {
  stop(): Promise<void>;
}

/**
 * Background work on a fixed beat, for `onWorkersStarted`: `work` runs every `intervalMs`, never
 * two at once (a slow run skips beats rather than piling up), and a failure is logged and the beat
 * goes on. `stop()` ends the beat and waits for a run in progress.
 */
export function repeatEvery(logger: Logger, task: string, intervalMs: number, work: () => Promise<void>): BackgroundTask {
  let running: Promise<void> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = work()
      .catch((error: unknown) => logger.warn({ task, ...safeErrorFields(error) }, 'background task failed'))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
