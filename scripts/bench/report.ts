/**
 * The one report writer of the benchmarks: a benchmark hands over its name, command, text, tables
 * and goals; the same markdown is printed and, with `--write-doc`, replaces the benchmark's marked
 * section of docs/benchmarks.md. The verdict of the goals is the process's exit code.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, settings, timingIsTheBenchmarks, type Measurement } from './lib';

export interface Table {
  header: string[];
  rows: string[][];
}

export interface Goal {
  goal: string;
  target: string;
  measured: string;
  /** Undefined: a figure reported beside the goals, with nothing to meet. */
  pass?: boolean;
}

/** A paragraph (markdown as is), a table, or a goals table. */
export type Block = string | Table | { goals: Goal[] };

export interface BenchReport {
  /** Its section's marker in docs/benchmarks.md: `<!-- bench:<id>:start -->`. */
  id: string;
  title: string;
  /** How to run it, e.g. `npm run bench:gotv`; a BENCH_SCALE other than 1 is put before it. */
  command: string;
  blocks: Block[];
  /** The BENCH_SCALE values whose runs the doc records (1 unless given). */
  recordedScales?: number[];
}

/** Load average 1/5/15 min now: whether something else (a test run) was competing for the cores. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
}

export function machineNote(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}; load average 1/5/15 min at start ${loadAverage()}`;
}

/** Read when the script starts, before its own load raises the load average. */
const run = { startedAt: new Date(), machine: machineNote() };

/** A GitHub-flavoured markdown table; also readable as it is in a terminal. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** A table of a report as markdown, to place inside a paragraph's text. */
export function tableText(table: Table): string {
  return markdownTable(table.header, table.rows);
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
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next = from >= 0 && to > from ? current.slice(0, from) + block + current.slice(to + end.length) : `${current.trimEnd()}\n\n${block}\n`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, next);
}

// ---------------------------------------------------------------------------------------------
// Shared pieces of a report

/** `value ≥ min`, shown with `digits` decimals and an optional unit (`ms`, `×`). */
export function atLeast(goal: string, value: number, min: number, options: { digits?: number; unit?: string } = {}): Goal {
  const show = (n: number) => `${n.toFixed(options.digits ?? 2)}${options.unit ?? ''}`;
  return { goal, target: `≥ ${min}${options.unit ?? ''}`, measured: show(value), pass: value >= min };
}

/** `value ≤ max`, shown with `digits` decimals and an optional unit (`ms`, `×`). */
export function atMost(goal: string, value: number, max: number, options: { digits?: number; unit?: string } = {}): Goal {
  const show = (n: number) => `${n.toFixed(options.digits ?? 2)}${options.unit ?? ''}`;
  return { goal, target: `≤ ${max}${options.unit ?? ''}`, measured: show(value), pass: value <= max };
}

/** No connection error and no answer outside 2xx in any of these loads. */
export function noErrors(goal: string, measurements: Measurement[]): Goal {
  const bad = measurements.reduce((sum, m) => sum + m.errors + m.non2xx, 0);
  return { goal, target: '0', measured: String(bad), pass: bad === 0 };
}

/** One row of a load table: a baseline when `vs` is absent, else compared with `vs.baseline`. */
export interface LoadRow {
  target: string;
  m: Measurement;
  vs?: { baseline: Measurement; name: string };
}

const cpuText = (m: Measurement) =>
  m.serverCpuUsPerRequest === undefined ? '–' : `${m.serverCpuUsPerRequest.toFixed(0)} µs${m.serverCpuPercent === undefined ? '' : ` (${m.serverCpuPercent.toFixed(0)}%)`}`;

/**
 * The table every autocannon benchmark shares: throughput, p50/p99, errors, the throughput ratio
 * and the p99 multiple against the row's baseline, and the server's CPU per request.
 */
export function loadTable(rows: LoadRow[], extra?: { header: string[]; cells: (m: Measurement) => string[] }): Table {
  return {
    header: [
      'Target',
      'req/s',
      'p50 (ms)',
      'p99 (ms)',
      'errors / non-2xx',
      'Throughput vs baseline',
      'p99 vs baseline',
      'Server CPU/request (% of a core)',
      ...(extra?.header ?? []),
    ],
    rows: rows.map(({ target, m, vs }) => [
      target,
      m.requestsPerSecond.toFixed(0),
      String(m.p50Ms),
      String(m.p99Ms),
      `${m.errors} / ${m.non2xx}`,
      vs ? `${(m.requestsPerSecond / vs.baseline.requestsPerSecond).toFixed(2)} × ${vs.name}` : 'baseline',
      vs ? `${(m.p99Ms / Math.max(1, vs.baseline.p99Ms)).toFixed(1)}×` : '–',
      cpuText(m),
      ...(extra?.cells(m) ?? []),
    ]),
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering, printing and writing

function render(block: Block): string {
  if (typeof block === 'string') return block.trim();
  if ('goals' in block) {
    return markdownTable(
      ['Goal', 'Target', 'Measured', 'Result'],
      block.goals.map((goal) => [goal.goal, goal.target, goal.measured, goal.pass === undefined ? '–' : goal.pass ? 'PASS' : 'FAIL']),
    );
  }
  return tableText(block);
}

/** The command with the knobs that shaped this run (only BENCH_SCALE can reach the doc). */
function commandOf(report: BenchReport): string {
  const knobs = [
    settings.scale === 1 ? '' : `BENCH_SCALE=${settings.scale}`,
    settings.seconds === undefined ? '' : `BENCH_SECONDS=${settings.seconds}`,
    settings.warmup === undefined ? '' : `BENCH_WARMUP=${settings.warmup}`,
    settings.rounds === undefined ? '' : `BENCH_ROUNDS=${settings.rounds}`,
    settings.rate === undefined ? '' : `BENCH_RATE=${settings.rate}`,
  ].filter(Boolean);
  return [...knobs, report.command].join(' ');
}

export function renderReport(report: BenchReport): string {
  const script = `scripts/bench/${path.basename(process.argv[1] ?? report.id, '.js')}.ts`;
  const header = `## ${report.title}\n\nCommand: \`${commandOf(report)}\` (\`${script}\`) · run ${run.startedAt.toISOString()} · machine: ${run.machine}.`;
  return [header, ...report.blocks.map(render)].join('\n\n');
}

/**
 * Prints the report, writes it to docs/benchmarks.md when `--write-doc` was given and the run is
 * one the doc records, and sets the exit code from the goals. Returns whether every goal passed.
 */
export function publish(report: BenchReport): boolean {
  const markdown = renderReport(report);
  const goals = report.blocks.flatMap((block) => (typeof block === 'object' && 'goals' in block ? block.goals : []));
  const pass = goals.every((goal) => goal.pass !== false);
  process.stdout.write(`\n${markdown}\n\n`);
  if (settings.writeDoc) {
    const recorded = (report.recordedScales ?? [1]).includes(settings.scale);
    if (timingIsTheBenchmarks && recorded) {
      writeDocSection(report.id, markdown);
      process.stdout.write(`Written to docs/benchmarks.md (section ${report.id}).\n`);
    } else {
      process.stdout.write(
        'Not written: BENCH_SECONDS, BENCH_WARMUP, BENCH_ROUNDS, BENCH_RATE, BENCH_CPU_PROF or this BENCH_SCALE make it another run than the one the doc records.\n',
      );
      process.exitCode = 2;
    }
  }
  process.stdout.write(`Overall: ${pass ? 'PASS' : 'FAIL'}\n`);
  if (!pass) process.exitCode = 1;
  return pass;
}

/** The end of every benchmark's main: a failure is printed and exits 1. */
export function runBenchmark(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
