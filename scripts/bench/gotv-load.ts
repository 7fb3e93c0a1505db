/**
 * The load side of the election-day benchmarks (bench:gotv, bench:scale), on the main thread of the
 * load process: a run's record in shared memory, the screens held by listener threads
 * (gotv-listeners.ts), brigade phones posting reports at a steady rate, and the CPU readings of the
 * processes measured. A run may be cut into steps (bench:scale's rates): each step has its own
 * latency histograms, and its reports are a range of the run's sequence numbers.
 */
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { HISTOGRAM_BUCKETS, Histogram, sharedNow, type ListenerCommand, type ListenerEvent, type ListenerJob, type StationScreens } from './gotv-listeners';
import { commandCpuSeconds, cpuSeconds, ownCpuSeconds } from './lib';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One run's record: send times and deliveries in shared memory, written by the listener threads. */
export interface Run {
  totalReports: number;
  /** Absolute send time of each report (`sharedNow()`), read by the listener threads. */
  sentAt: Float64Array;
  /** Which step's histograms a report's deliveries go to (-1: warm-up, not measured). */
  stepOf: Int8Array;
  accepted: Uint8Array;
  /** Sent → answered, per step. */
  httpLatencies: Histogram[];
  sendErrors: number;
  // Filled by the listeners (the histograms and `received` as they go, the rest when they close):
  /** Sent → received at every war-room screen, per step. */
  latencies: Histogram[];
  received: Uint8Array[];
  messages: number;
  duplicates: number;
  projectionPushes: number[][];
  /** The size of each gotv:projection push as JSON, as the first client on each process read it. */
  projectionBytes: number[];
}

/** A run of `totalReports` reports measured in `steps` steps. */
export function newRun(totalReports: number, steps: number): Run {
  return {
    totalReports,
    sentAt: new Float64Array(new SharedArrayBuffer(totalReports * 8)),
    stepOf: new Int8Array(new SharedArrayBuffer(totalReports)).fill(-1),
    accepted: new Uint8Array(totalReports),
    httpLatencies: Array.from({ length: steps }, () => new Histogram()),
    sendErrors: 0,
    latencies: Array.from({ length: steps }, () => new Histogram()),
    received: [],
    messages: 0,
    duplicates: 0,
    projectionPushes: [],
    projectionBytes: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Screens: socket.io clients spread over worker threads of this process

interface Thread {
  worker: Worker;
  counters: Int32Array;
  received: Uint8Array[];
  histograms: Histogram[];
}

export interface Listeners {
  run: Run;
  threads: Thread[];
  /** Station screens: per screen and per level of its station's `confirmedVoted`, when it first showed it. */
  stationSeenAt?: Float64Array;
}

function nextEvent(worker: Worker, type: ListenerEvent['type']): Promise<ListenerEvent> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: ListenerEvent) => {
      if (event.type === 'error') reject(new Error(`listener thread: ${event.message}`));
      else if (event.type === type) resolve(event);
      else return;
      worker.off('message', onMessage);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}

export interface ListenerOptions {
  /** Client i connects to urls[i % urls.length]. */
  urls: string[];
  /** With a token, the war-room clients join `gotv` (Comando); without, the bare baseline puts them there. */
  token: string | undefined;
  /** War-room screens, spread over `threads` worker threads. */
  clients: number;
  threads: number;
  voterIds: string[];
  /** Station screens (brigade phones following their station), on a thread of their own, after the war-room ones. */
  stations?: Omit<StationScreens, 'seenAt'>;
}

/** Connects every client and, with a token, joins them to their rooms. */
export async function startListeners(options: ListenerOptions, run: Run): Promise<Listeners> {
  const perThread = Math.ceil(options.clients / options.threads);
  const threads: Thread[] = [];
  const steps = run.latencies.length;
  const spawnThread = (firstClient: number, clients: number, stations?: StationScreens) => {
    const job: ListenerJob = {
      urls: options.urls,
      token: options.token,
      firstClient,
      clients,
      totalReports: run.totalReports,
      stepOf: run.stepOf.buffer as SharedArrayBuffer,
      voterIds: options.voterIds,
      sentAt: run.sentAt.buffer as SharedArrayBuffer,
      received: new SharedArrayBuffer(stations ? 0 : clients * run.totalReports),
      histograms: Array.from({ length: steps }, () => new SharedArrayBuffer(HISTOGRAM_BUCKETS * 4)),
      counters: new SharedArrayBuffer(8),
      ...(stations ? { stations } : {}),
    };
    const worker = new Worker(path.join(__dirname, 'gotv-listeners.js'), { workerData: job });
    threads.push({
      worker,
      histograms: job.histograms.map((buffer) => new Histogram(buffer)),
      counters: new Int32Array(job.counters),
      received: stations ? [] : Array.from({ length: clients }, (_, c) => new Uint8Array(job.received, c * run.totalReports, run.totalReports)),
    });
  };
  for (let firstClient = 0; firstClient < options.clients; firstClient += perThread) spawnThread(firstClient, Math.min(perThread, options.clients - firstClient));
  let stationSeenAt: Float64Array | undefined;
  if (options.stations) {
    const seenAt = new SharedArrayBuffer(options.stations.ids.length * options.stations.levels * 8);
    stationSeenAt = new Float64Array(seenAt);
    spawnThread(options.clients, options.stations.ids.length, { ...options.stations, seenAt });
  }
  await Promise.all(threads.map((thread) => nextEvent(thread.worker, 'ready')));
  return { run, threads, ...(stationSeenAt ? { stationSeenAt } : {}) };
}

/** The war-room deliveries recorded so far, per step, and the duplicates (all steps). */
export function collectLatencies(listeners: Listeners): { latencies: Histogram[]; duplicates: number; messages: number } {
  const latencies = listeners.run.latencies.map(() => new Histogram());
  let duplicates = 0;
  let messages = 0;
  for (const thread of listeners.threads) {
    thread.histograms.forEach((histogram, step) => latencies[step]!.add(histogram));
    messages += thread.counters[0]!;
    duplicates += thread.counters[1]!;
  }
  return { latencies, duplicates, messages };
}

/** The war-room screens' record of which reports each received (live: the threads keep writing it). */
export function receivedSoFar(listeners: Listeners): Uint8Array[] {
  return listeners.threads.flatMap((thread) => thread.received);
}

/** Closes the clients, ends the threads and gathers what they recorded into the run. */
export async function stopListeners(listeners: Listeners): Promise<void> {
  const { run, threads } = listeners;
  const collected = collectLatencies(listeners);
  run.latencies = collected.latencies;
  run.messages = collected.messages;
  run.duplicates = collected.duplicates;
  run.received = receivedSoFar(listeners);
  const pushes: number[][] = [];
  for (const thread of threads) {
    const closed = nextEvent(thread.worker, 'closed');
    thread.worker.postMessage({ type: 'close' } satisfies ListenerCommand);
    const event = (await closed) as Extract<ListenerEvent, { type: 'closed' }>;
    event.projectionPushes.forEach((list, i) => (pushes[i] = [...(pushes[i] ?? []), ...list]));
    run.projectionBytes.push(...event.projectionBytes);
    await thread.worker.terminate();
  }
  run.projectionPushes = pushes;
}

/** Stops the delivery bookkeeping (the clients keep reading): see `stop-recording`. */
export function stopRecording(listeners: Listeners): void {
  for (const thread of listeners.threads) thread.worker.postMessage({ type: 'stop-recording' } satisfies ListenerCommand);
}

// ---------------------------------------------------------------------------------------------
// Brigade phones: a steady rate of single-report POSTs over keep-alive connections

// Idle connections are dropped before any server's keep-alive timeout (the baseline's is Node's
// default, 5 s; Comando's HTTP_KEEP_ALIVE_TIMEOUT, 65 s), so a request never goes out on a
// connection the server is closing at that moment (ECONNRESET).
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo', timeout: 4000 });

export function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** CPU seconds so far: the load process, each app process, PostgreSQL and Redis (NaN where unreadable). */
export interface CpuReading {
  load: number;
  servers: number[];
  postgres: number;
  redis: number;
}

/**
 * With `postgresPids` (the backends of the run's own database, from `pg_stat_activity`), PostgreSQL
 * is those backends only: on a machine others use too, every `postgres` process counts their work.
 */
export function cpuReadings(serverPids: number[], postgresPids?: number[]): CpuReading {
  return {
    load: ownCpuSeconds(),
    servers: serverPids.map((pid) => cpuSeconds(pid) ?? Number.NaN),
    postgres: postgresPids ? postgresPids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0) : (commandCpuSeconds('postgres') ?? Number.NaN),
    redis: commandCpuSeconds('redis-server') ?? Number.NaN,
  };
}

/** The CPU seconds used between two readings. */
export function cpuUsed(before: CpuReading, after: CpuReading): CpuReading {
  return {
    load: after.load - before.load,
    servers: after.servers.map((seconds, i) => seconds - before.servers[i]!),
    postgres: after.postgres - before.postgres,
    redis: after.redis - before.redis,
  };
}

export interface DriveOptions {
  /** Reports `from` to `to` (exclusive) of the run, sent at `rate` per second. */
  from: number;
  to: number;
  rate: number;
  /** The reports from this one on are measured in step `step`; those before it are a warm-up. */
  measuredFrom: number;
  step: number;
  /** Called as the first measured report goes out (e.g. to read the CPU counters). */
  onMeasured?: () => void;
}

/**
 * Sends reports at a steady rate and waits for every answer. `send` answers whether the report was
 * accepted. Returns the seconds the sending took, from the first measured report on.
 */
export async function drive(run: Run, options: DriveOptions, send: (seq: number) => Promise<boolean>): Promise<{ measuredSeconds: number }> {
  const { from, to, rate, measuredFrom, step, onMeasured } = options;
  run.stepOf.fill(step, measuredFrom, to);
  const http = run.httpLatencies[step]!;
  const started = performance.now();
  let measuredStarted = Number.NaN;
  const inFlight = new Set<Promise<void>>();
  let seq = from;
  while (seq < to) {
    const due = Math.min(to, from + Math.floor(((performance.now() - started) / 1000) * rate));
    for (; seq < due; seq++) {
      const mine = seq;
      if (mine === measuredFrom) {
        measuredStarted = performance.now();
        onMeasured?.();
      }
      run.sentAt[mine] = sharedNow();
      const promise = send(mine)
        .then((accepted) => {
          if (mine >= measuredFrom) http.record(sharedNow() - run.sentAt[mine]!);
          if (accepted) run.accepted[mine] = 1;
        })
        .catch((error: unknown) => {
          if (!run.sendErrors++) process.stdout.write(`  a report could not be sent: ${String(error)}\n`);
        })
        .finally(() => inFlight.delete(promise));
      inFlight.add(promise);
    }
    await sleep(2);
  }
  await Promise.all(inFlight);
  return { measuredSeconds: (performance.now() - measuredStarted) / 1000 };
}

export interface Delivery {
  accepted: number;
  lost: number;
  clientsMissing: number;
}

/** Of reports `from` to `to`: how many were accepted, and the deliveries of accepted ones missing at the screens. */
export function delivery(run: Run, received: Uint8Array[], from = 0, to = run.totalReports): Delivery {
  let accepted = 0;
  for (let seq = from; seq < to; seq++) accepted += run.accepted[seq]!;
  let lost = 0;
  let clientsMissing = 0;
  for (const seen of received) {
    let missing = 0;
    for (let seq = from; seq < to; seq++) if (run.accepted[seq] && !seen[seq]) missing++;
    lost += missing;
    if (missing) clientsMissing++;
  }
  return { accepted, lost, clientsMissing };
}
