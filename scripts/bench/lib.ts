/**
 * Shared pieces of the benchmarks in scripts/bench/: start a server in a child process and wait
 * for it, load it with autocannon, render a markdown table, and rewrite one marked section of
 * docs/benchmarks.md. Later benchmarks (lead capture, GOTV) reuse these.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

/** Repository root: dist/scripts/bench/lib.js → three levels up. */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** Server logs go to files here rather than to pipes the load generator would have to drain. */
export const logDir = path.join(os.tmpdir(), 'comando-bench');

// ---------------------------------------------------------------------------------------------
// Servers in child processes

/** A port the OS reports free now (a tiny race with other programs is acceptable here). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerOptions {
  /** Short name for messages and the log file name. */
  name: string;
  /** Script run with this same node binary; relative paths are from the repository root. */
  script: string;
  /** Extra environment (PORT and HOST are set by startServer). */
  env?: Record<string, string>;
  /** Path polled until it answers 200. */
  readyPath: string;
  readyTimeoutMs?: number;
}

export interface RunningServer {
  name: string;
  url: string;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

/**
 * Work to do should the run be interrupted (Ctrl-C), e.g. dropping a database. On normal
 * completion and on errors the caller's own finally blocks do it.
 */
export function onInterrupt(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

// Last resort: never leave a server behind, whatever way the harness ends.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping servers and cleaning up\n`);
    for (const child of children) child.kill('SIGKILL');
    const deadline = new Promise((resolve) => setTimeout(resolve, 5000).unref());
    const done = Promise.allSettled(cleanups.map((cleanup) => cleanup()));
    void Promise.race([done, deadline]).then(() => process.exit(130));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function waitUntilReady(child: ChildProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

/** Spawns `node <script>` on a free port of 127.0.0.1 and resolves once readyPath answers 200. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${options.name.replace(/[^A-Za-z0-9_.-]+/g, '-')}.log`);
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [path.resolve(repoRoot, options.script)], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    // A file, not a pipe: a pipe nobody drains would stall the server, and draining it would
    // cost the load generator CPU.
    stdio: ['ignore', log, log],
  });
  closeSync(log); // the child holds its own copy
  children.add(child);
  child.once('exit', () => children.delete(child));

  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.kill('SIGTERM'); // graceful: lets Comando close its DB and Redis connections
    await exited(child);
    clearTimeout(killer);
  };
  try {
    await waitUntilReady(child, url + options.readyPath, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${options.name} ${(error as Error).message}; log ${logFile}:\n${tail(logFile)}`);
  }
  return { name: options.name, url, pid: child.pid ?? 0, logFile, stop };
}

/** Runs fn with a started server and always stops it afterwards. */
export async function withServer<T>(options: ServerOptions, fn: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(options);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Load

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
  /** The server's process, to report the CPU it spends per request. */
  serverPid?: number;
}

export interface Measurement {
  /** Mean of the per-second request counts. */
  requestsPerSecond: number;
  p99Ms: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  /** 2xx responses in the warm-up and the measurement together (for row-count checks). */
  total2xx: number;
  /**
   * Server CPU time per answered request (µs) and its share of one core, when serverPid is
   * given. Less sensitive than req/s to other programs taking the cores, so it shows cost.
   */
  serverCpuUsPerRequest?: number;
  serverCpuPercent?: number;
}

/** User + system CPU seconds a process has used so far (Linux /proc; undefined elsewhere). */
function cpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / 100 : undefined; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** Defaults of the suite; BENCH_DURATION / BENCH_WARMUP shorten a smoke run of the harness. */
export const defaults = {
  connections: 50,
  durationSeconds: Number(process.env.BENCH_DURATION ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 3),
};

function run(options: LoadOptions, durationSeconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections ?? defaults.connections,
    duration: durationSeconds,
  });
}

/**
 * A warm-up (JIT, connection pools, caches) then the measured run, both with the same
 * connections. Only the measured run's numbers are reported.
 */
export async function measure(options: LoadOptions): Promise<Measurement> {
  const warmup = await run(options, options.warmupSeconds ?? defaults.warmupSeconds);
  const cpuBefore = options.serverPid ? cpuSeconds(options.serverPid) : undefined;
  const result = await run(options, options.durationSeconds ?? defaults.durationSeconds);
  const cpuAfter = options.serverPid ? cpuSeconds(options.serverPid) : undefined;
  const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
  const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total2xx: warmup['2xx'] + result['2xx'],
    ...(cpu === undefined || answered === 0
      ? {}
      : { serverCpuUsPerRequest: (cpu * 1e6) / answered, serverCpuPercent: (cpu * 100) / result.duration }),
  };
}

// ---------------------------------------------------------------------------------------------
// Reporting

/** A GitHub-flavoured markdown table; also readable as it is in a terminal. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export const benchmarksDoc = path.join(repoRoot, 'docs', 'benchmarks.md');

/**
 * Replaces the section between `<!-- bench:<id>:start -->` and `<!-- bench:<id>:end -->`
 * (appending it the first time), so each benchmark rewrites only its own results.
 */
export function writeDocSection(id: string, content: string, file = benchmarksDoc): void {
  const start = `<!-- bench:${id}:start -->`;
  const end = `<!-- bench:${id}:end -->`;
  const block = `${start}\n${content.trim()}\n${end}`;
  const current = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# Benchmarks\n\nProduced by the scripts in `scripts/bench/`; each section is rewritten by its own run.\n';
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, next);
}

export function machineNote(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  // The load average shows whether something else (a test run) was competing for the cores.
  const load = os.loadavg().map((value) => value.toFixed(2)).join(' / ');
  return `${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}; load average 1/5/15 min at start ${load}`;
}
