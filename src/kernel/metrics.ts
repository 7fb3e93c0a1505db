import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (`GET /metrics`, kernel/http/system.routes.ts). One registry per
 * process (a test runs several in one Node process). Hot paths only count or observe into series
 * made once; what costs a walk (rooms, pools, queues) is read when Prometheus scrapes.
 */

/** Seconds buckets for request and wait times, from 1 ms (a cached read) to 10 s (the turnout deadline). */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** What an outbound engine has in hand in this process: claimed and waiting for its turn, and being sent. */
export interface OutboundLoad {
  waiting: number;
  inFlight: number;
}

type Probe<T> = () => T;

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;
  /** From a turnout request's arrival to its accepted reports being handed to the war room's window. */
  readonly reportToPublish: Histogram<never>;
  /** From a batched window's opening (its first item) to its message being sent to the room. */
  readonly windowDelay: Histogram<'event'>;
  readonly coalescerWait: Histogram<'coalescer'>;
  readonly redisFailures: Counter<'connection'>;
  readonly outboundSends: Counter<'channel' | 'outcome'>;
  readonly jobFailures: Counter<'job'>;

  private readonly coalescers = new Map<string, Probe<number>>();
  private readonly engines = new Map<string, Probe<OutboundLoad>>();
  private pool: Probe<PoolStats> | undefined;
  private sockets: Probe<Map<string, number>> | undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'comando_' });
    // Defaults whose cost grows with the sockets connected, several ms a scrape at 2,000 (the
    // descriptor count reads a directory entry per socket, the handle and resource counts list
    // every one; comando_socket_room_members counts sockets instead), and the plain lag gauge,
    // which waits a turn of a busy event loop (the lag percentiles, from Node's own monitor, stay).
    for (const name of [
      'process_open_fds',
      'nodejs_active_handles',
      'nodejs_active_handles_total',
      'nodejs_active_resources',
      'nodejs_active_resources_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      this.registry.removeSingleMetric(`comando_${name}`);
    }
    this.httpRequests = new Histogram({
      name: 'comando_http_request_duration_seconds',
      help: 'HTTP requests by method, route template (never the raw path) and status',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS,
      registers,
    });
    this.reportToPublish = new Histogram({
      name: 'comando_gotv_report_publish_seconds',
      help: "Turnout reports: request arrival to the accepted reports' hand-over to the war room's window (add comando_realtime_window_seconds for the wire)",
      buckets: SECONDS,
      registers,
    });
    this.windowDelay = new Histogram({
      name: 'comando_realtime_window_seconds',
      help: 'Batched socket events: window opened to its message sent, by event',
      labelNames: ['event'],
      buckets: SECONDS,
      registers,
    });
    this.coalescerWait = new Histogram({
      name: 'comando_coalescer_wait_seconds',
      help: "Coalesced statements: an item's wait from submit to its batch leaving",
      labelNames: ['coalescer'],
      buckets: SECONDS,
      registers,
    });
    this.redisFailures = new Counter({
      name: 'comando_redis_command_failures_total',
      help: 'Redis commands that failed or timed out, by connection',
      labelNames: ['connection'],
      registers,
    });
    this.outboundSends = new Counter({
      name: 'comando_outbound_sends_total',
      help: 'Outbound messages settled, by channel and outcome',
      labelNames: ['channel', 'outcome'],
      registers,
    });
    this.jobFailures = new Counter({ name: 'comando_job_failures_total', help: 'Job runs that failed (each attempt), by job', labelNames: ['job'], registers });

    const coalescers = this.coalescers;
    new Gauge({
      name: 'comando_coalescer_queue_depth',
      help: 'Items waiting for a batch, by coalescer',
      labelNames: ['coalescer'],
      registers,
      collect() {
        for (const [name, depth] of coalescers) this.set({ coalescer: name }, depth());
      },
    });
    const engines = this.engines;
    new Gauge({
      name: 'comando_outbound_queue_depth',
      help: "Messages this process claimed, by channel and state (waiting: for the channel's pace; in_flight: being sent)",
      labelNames: ['channel', 'state'],
      registers,
      collect() {
        for (const [channel, load] of engines) {
          const { waiting, inFlight } = load();
          this.set({ channel, state: 'waiting' }, waiting);
          this.set({ channel, state: 'in_flight' }, inFlight);
        }
      },
    });
    const pool = () => this.pool?.();
    new Gauge({
      name: 'comando_db_pool_connections',
      help: 'Database pool connections by state (in_use, idle) and statements waiting for one (waiting)',
      labelNames: ['state'],
      registers,
      collect() {
        const stats = pool();
        if (!stats) return;
        this.set({ state: 'in_use' }, stats.total - stats.idle);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
    const sockets = () => this.sockets?.();
    new Gauge({
      name: 'comando_socket_room_members',
      help: "Sockets connected to this process by room kind (the room name up to its first ':'; 'connected' is every socket)",
      labelNames: ['kind'],
      registers,
      collect() {
        const counts = sockets();
        if (!counts) return;
        this.reset();
        for (const [kind, count] of counts) this.set({ kind }, count);
      },
    });
  }

  /** Reports a coalescer's queue at each scrape; its waits go to `coalescerWait` under the same name. */
  trackCoalescer(name: string, depth: Probe<number>): void {
    this.coalescers.set(name, depth);
  }

  trackOutbound(channel: string, load: Probe<OutboundLoad>): void {
    this.engines.set(channel, load);
  }

  trackPool(stats: Probe<PoolStats>): void {
    this.pool = stats;
  }

  trackSockets(counts: Probe<Map<string, number>>): void {
    this.sockets = counts;
  }

  /** The text Prometheus scrapes. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
