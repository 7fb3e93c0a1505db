import { parentPort } from 'node:worker_threads';
import type { DayFit } from './curve-model';
import { fitPrepared, project, type PreparedDay, type ProjectionInput } from './projection';

/** A projection asked of the worker: the day's inputs, and the stations whose own figures to list (null: none). */
export interface ProjectionJob {
  id: number;
  input: ProjectionInput;
  stations: string[] | null;
}

export type ProjectionReply = { id: number; result: ReturnType<typeof project> } | { id: number; error: string };

// The last fit, kept while no count changes its inputs: a push or a page after it reuses it.
let fitCache: { key: string; fit: DayFit } | undefined;
function cachedFit(prepared: PreparedDay): DayFit {
  if (fitCache?.key === prepared.key) return fitCache.fit;
  const fit = fitPrepared(prepared);
  fitCache = { key: prepared.key, fit };
  return fit;
}

parentPort?.on('message', (job: ProjectionJob) => {
  let reply: ProjectionReply;
  try {
    const wanted = job.stations ? new Set(job.stations) : undefined;
    reply = { id: job.id, result: project(job.input, { fit: cachedFit, stations: (id) => wanted?.has(id) ?? false }) };
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
