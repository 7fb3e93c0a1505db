import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ProjectionJob, ProjectionReply } from './projection-worker';
import type { ProjectedDay, ProjectionInput } from './projection';

/**
 * Projects a day on a worker thread of this process. At national size the fit costs about a second
 * of CPU, and on the event loop every report the process was answering waited behind it; here only
 * reading the inputs and copying them to the thread stay on it. One worker, one projection at a
 * time in it (its fit cache serves the next one); a worker that dies is replaced on the next ask.
 */
export class Projector {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (day: ProjectedDay) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private closed = false;

  project(input: ProjectionInput, stations?: ReadonlySet<string>): Promise<ProjectedDay> {
    if (this.closed) return Promise.reject(new Error('the projector is closed'));
    const worker = this.started();
    const id = this.nextId++;
    const job: ProjectionJob = { id, input, stations: stations ? [...stations] : null };
    return new Promise<ProjectedDay>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
    this.fail(new Error('the projector closed'));
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // Under the test runner the sources are TypeScript: the thread loads them through tsx.
    const typescript = __filename.endsWith('.ts');
    const worker = new Worker(path.join(__dirname, `projection-worker.${typescript ? 'ts' : 'js'}`), typescript ? { execArgv: ['--import', 'tsx'] } : {});
    worker.unref();
    worker.on('message', (reply: ProjectionReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.result);
    });
    const lost = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      this.fail(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the projection worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
