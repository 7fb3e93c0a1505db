/**
 * The war-room screens of bench:gotv, as worker threads of the load process: each thread holds a
 * share of the socket.io clients, so that parsing 2,000 clients' messages is spread over threads
 * instead of queueing behind one event loop (where it delayed every measurement, the report sends
 * included). Everything a thread records goes into shared memory the main thread reads afterwards:
 * per client, which reports it received; per thread, a latency histogram and counters.
 *
 * Times are absolute (`performance.timeOrigin + performance.now()`, milliseconds), so a send
 * recorded on the main thread and a receipt recorded here are on one clock.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import { decodeTurnout, type TurnoutMessage } from '../../src/modules/gotv/gotv.turnout-wire';

/** Milliseconds on the clock shared by the load process's threads. */
export const sharedNow = (): number => performance.timeOrigin + performance.now();

/** 0.1 ms buckets up to 30 s, in memory a thread writes and the main thread reads. */
export const HISTOGRAM_BUCKETS = 300_001;

export class Histogram {
  readonly buckets: Uint32Array;
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(HISTOGRAM_BUCKETS * 4)) {
    this.buckets = new Uint32Array(buffer);
  }
  record(ms: number): void {
    this.buckets[Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, Math.round(ms * 10)))]!++;
  }
  get count(): number {
    return this.buckets.reduce((sum, n) => sum + n, 0);
  }
  add(other: Histogram): void {
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) this.buckets[i]! += other.buckets[i]!;
  }
  percentile(p: number): number {
    const target = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
      seen += this.buckets[i]!;
      if (seen >= target && seen > 0) return i / 10;
    }
    return Number.NaN;
  }
}

/** What the main thread hands each listener thread. */
export interface ListenerJob {
  urls: string[];
  token: string | undefined;
  /** Global index of this thread's first client (client i connects to urls[i % urls.length]). */
  firstClient: number;
  clients: number;
  totalReports: number;
  /** Int8 per report: the step whose histogram its deliveries go to, -1 for none (a warm-up). */
  stepOf: SharedArrayBuffer;
  /** voterIds[seq] is the voter of report seq: how an item is matched to its report. */
  voterIds: string[];
  /** Float64: absolute send time of each report. */
  sentAt: SharedArrayBuffer;
  /** Uint8, clients × totalReports: 1 once client c received report seq. */
  received: SharedArrayBuffer;
  /** A latency histogram per step. */
  histograms: SharedArrayBuffer[];
  /** Int32: [messages carrying this run's reports, duplicate deliveries]. */
  counters: SharedArrayBuffer;
  /** Instead of war-room screens, this thread's clients are station screens. */
  stations?: StationScreens;
}

/**
 * Station screens, as a brigade phone follows its station: client i joins `gotv:station:<ids[i]>`
 * with `tokens[i]` (a member of a brigade covering it) and records, in `seenAt` (Float64, clients ×
 * levels), when it first showed each value of the station's `confirmedVoted` (level k: the k-th
 * voter of the station marked voted), so that the main thread can time each report to it.
 */
export interface StationScreens {
  ids: string[];
  tokens: string[];
  levels: number;
  seenAt: SharedArrayBuffer;
}

/**
 * `close`: disconnect and report. `stop-recording`: the measured run is over; the clients keep
 * reading (and socket.io-client keeps parsing) every message, but the delivery bookkeeping stops,
 * so that it does not take CPU from the server during the route measurement that follows.
 */
export type ListenerCommand = { type: 'close' } | { type: 'stop-recording' };
export type ListenerEvent = { type: 'ready' } | { type: 'error'; message: string } | { type: 'closed'; projectionPushes: number[][]; projectionBytes: number[] };

/** A station screen (see `StationScreens`): joins its station's room and notes when each figure first showed. */
async function stationScreen(url: string, stations: StationScreens, local: number): Promise<Socket> {
  const seenAt = new Float64Array(stations.seenAt, local * stations.levels * 8, stations.levels);
  const stationId = stations.ids[local]!;
  const socket = io(url, { path: '/socket.io', transports: ['websocket'], forceNew: true, reconnection: false, auth: { token: stations.tokens[local] } });
  socket.on('gotv:station', (event: { id: string; confirmedVoted: number }) => {
    if (event.id !== stationId) return;
    const now = sharedNow();
    for (let level = Math.min(event.confirmedVoted, stations.levels - 1); level > 0 && !seenAt[level]; level--) seenAt[level] = now;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  const answer = (await socket.timeout(10_000).emitWithAck('subscribe', { rooms: [`gotv:station:${stationId}`] })) as { ok: boolean };
  if (!answer.ok) throw new Error(`a station screen could not join its station's room: ${JSON.stringify(answer)}`);
  return socket;
}

async function listen(job: ListenerJob): Promise<void> {
  const sentAt = new Float64Array(job.sentAt);
  const histograms = job.histograms.map((buffer) => new Histogram(buffer));
  const stepOf = new Int8Array(job.stepOf);
  const counters = new Int32Array(job.counters);
  const seqByVoter = new Map(job.voterIds.map((id, seq) => [id, seq]));
  // The first client on each server also records gotv:projection pushes (when each was computed).
  const projectionPushes: number[][] = job.urls.map(() => []);
  // … and their size as JSON, to show that the baseline's recorded push is the same size as Comando's.
  const projectionBytes: number[] = [];
  const sockets: Socket[] = [];
  let recording = true;
  /**
   * Every client receives the same messages: the first to read one resolves its items to report
   * numbers (-1: not this run's), the others reuse that. Looking each item up for every client
   * was 400,000 string-keyed lookups a second, a tenth of the machine taken from the servers
   * measured. A message's items are distinct reports, so its length and its first and last
   * records (each holds a voter's id) name it; it is decoded once.
   */
  const seqsByMessage = new Map<string, Int32Array>();
  const seqsOf = (message: TurnoutMessage): Int32Array => {
    const { packed } = message;
    const key = `${packed.length}:${packed.slice(0, 64)}:${packed.slice(-64)}`;
    let seqs = seqsByMessage.get(key);
    if (!seqs) {
      seqs = Int32Array.from(decodeTurnout(message), (item) => {
        const seq = seqByVoter.get(item[2] as string);
        // Reports of the full-speed phase reach the still-connected clients too: not this run's.
        return seq === undefined || seq >= job.totalReports ? -1 : seq;
      });
      seqsByMessage.set(key, seqs);
      // Clients lagging by up to a few hundred messages still find theirs.
      if (seqsByMessage.size > 5000) seqsByMessage.delete(seqsByMessage.keys().next().value!);
    }
    return seqs;
  };
  for (let start = 0; start < job.clients; start += 100) {
    const batch = Array.from({ length: Math.min(100, job.clients - start) }, (_, offset) => {
      const local = start + offset;
      const global = job.firstClient + local;
      const url = job.urls[global % job.urls.length]!;
      if (job.stations) return stationScreen(url, job.stations, local);
      const seen = new Uint8Array(job.received, local * job.totalReports, job.totalReports);
      return new Promise<Socket>((resolve, reject) => {
        const socket = io(url, { path: '/socket.io', transports: ['websocket'], forceNew: true, reconnection: false, ...(job.token ? { auth: { token: job.token } } : {}) });
        socket.on('gotv:turnout', (message: TurnoutMessage) => {
          if (!recording) return;
          const now = sharedNow();
          let ours = false;
          for (const seq of seqsOf(message)) {
            if (seq < 0) continue;
            ours = true;
            if (seen[seq]) counters[1]!++;
            seen[seq] = 1;
            const latency = now - sentAt[seq]!;
            if (stepOf[seq]! >= 0) histograms[stepOf[seq]!]!.record(latency);
          }
          if (ours) counters[0]!++;
        });
        if (global < job.urls.length) {
          socket.on('gotv:projection', (push: { generatedAt: string }) => {
            projectionPushes[global]!.push(Date.parse(push.generatedAt));
            projectionBytes.push(JSON.stringify(push).length);
          });
        }
        socket.once('connect', () => resolve(socket));
        socket.once('connect_error', (error) => reject(error));
      });
    });
    sockets.push(...(await Promise.all(batch)));
  }
  if (job.token && !job.stations) {
    // Comando's clients ask to join the room, like the war-room screens do.
    const answers = await Promise.all(sockets.map((socket) => socket.timeout(10_000).emitWithAck('subscribe', { rooms: ['gotv'] }) as Promise<{ ok: boolean }>));
    if (!answers.every((answer) => answer.ok)) throw new Error('a client could not join gotv');
  }
  parentPort!.on('message', (command: ListenerCommand) => {
    if (command.type === 'stop-recording') recording = false;
    if (command.type !== 'close') return;
    for (const socket of sockets) socket.close();
    parentPort!.postMessage({ type: 'closed', projectionPushes, projectionBytes } satisfies ListenerEvent);
  });
  parentPort!.postMessage({ type: 'ready' } satisfies ListenerEvent);
}

if (parentPort && workerData) {
  listen(workerData as ListenerJob).catch((error: unknown) => {
    parentPort!.postMessage({ type: 'error', message: (error as Error).stack ?? String(error) } satisfies ListenerEvent);
  });
}
