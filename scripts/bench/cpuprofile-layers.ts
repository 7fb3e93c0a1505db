/**
 * A V8 `.cpuprofile` split into the layers of a request (HTTP, authentication, validation, the
 * statement, the publish, the access log, GC, …). Each sample goes to the innermost frame that
 * belongs to a layer: a socket write issued by the PostgreSQL client is the database's, JSON parsing
 * inside the body parser is the body parser's. Node's own frames count only when no library or
 * Comando frame is above them.
 *
 *   node dist/scripts/bench/cpuprofile-layers.js <file.cpuprofile> [fromMonotonicUs toMonotonicUs]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** Microseconds on the machine's monotonic clock (the one `process.hrtime` reads). */
  startTime: number;
}

/** Ordered: the first rule a frame's url matches names its layer. */
const LAYERS: [layer: string, url: RegExp][] = [
  ['validation (zod)', /node_modules\/zod\//],
  [
    'access log (pino)',
    /node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream|on-exit-leak-free|fast-redact|quick-format-unescaped|atomic-sleep)\/|src\/kernel\/logger\.js/,
  ],
  ['authentication', /node_modules\/(jsonwebtoken|jws|jwa|ecdsa-sig-formatter|safe-buffer|lodash\.[a-z]+|semver|ms)\/|src\/kernel\/auth\//],
  [
    'realtime publish (Socket.IO, Redis)',
    /node_modules\/(socket\.io|socket\.io-adapter|socket\.io-parser|@socket\.io\/[^/]+|engine\.io|engine\.io-parser|ws|ioredis|@ioredis\/[^/]+|redis-parser|cluster-key-slot|denque|notepack\.io|@msgpack\/[^/]+)\/|src\/kernel\/(realtime|redis|cache)\.js|gotv\.(pushes|events)\.js/,
  ],
  [
    'statement and transaction (pg, ORM)',
    /node_modules\/(pg|pg-pool|pg-protocol|pg-types|pg-connection-string|postgres-[a-z]+|@mikro-orm\/[^/]+|kysely|knex)\/|src\/kernel\/(sql|db)\.js|\.repository\.js/,
  ],
  ["the route's own code (GOTV service, the baseline's handler)", /src\/modules\/gotv\/|dist\/scripts\/bench\//],
  [
    'Koa, router, body, errors',
    /node_modules\/(koa|@koa\/[^/]+|koa-[a-z-]+|co-body|raw-body|inflation|iconv-lite|type-is|mime-types|content-type|http-errors|statuses|on-finished|destroy|vary|accepts|negotiator|cookies|keygrip|depd|delegates|only|encodeurl|escape-html|path-to-regexp|fresh|bytes|unpipe|ee-first)\/|src\/kernel\/(http|errors|context)|src\/app\.js/,
  ],
  ['Comando, other', /\/dist\/src\//],
];

/** When only Node's own frames are on the stack. */
const NODE_LAYERS: [layer: string, url: RegExp][] = [
  ['node: HTTP parser and server', /^node:_http_|^node:http$/],
  ['node: sockets and streams', /^node:(net|stream|internal\/stream|internal\/net|internal\/streams)/],
];

const layerOfUrl = (url: string, rules: [string, RegExp][]) => rules.find(([, pattern]) => pattern.test(url))?.[0];

/** Microseconds of CPU per layer (idle excluded) for the samples taken between from and to (monotonic µs). */
export function profileLayers(profile: CpuProfile, fromUs = -Infinity, toUs = Infinity): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const layerOfNode = new Map<number, string>();
  const classify = (id: number): string => {
    const known = layerOfNode.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame;
    let layer: string | undefined;
    if (leaf.functionName === '(garbage collector)') layer = 'GC';
    else if (leaf.functionName === '(idle)') layer = '(idle)';
    else if (leaf.functionName === '(program)') layer = 'V8 and native, no JavaScript caller';
    let fallback: string | undefined;
    for (let at: number | undefined = id; !layer && at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)!.callFrame.url;
      if (!url) continue;
      if (url.startsWith('node:')) fallback ??= layerOfUrl(url, NODE_LAYERS) ?? 'node: other';
      else layer = layerOfUrl(url, LAYERS) ?? 'other libraries';
    }
    layer ??= fallback ?? 'V8 and native, no JavaScript caller';
    layerOfNode.set(id, layer);
    return layer;
  };
  const totals = new Map<string, number>();
  let time = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (time < fromUs || time > toUs) return;
    const layer = classify(id);
    if (layer !== '(idle)') totals.set(layer, (totals.get(layer) ?? 0) + delta);
  });
  return totals;
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** Rows of [layer, baseline µs per request, target µs per request, difference], the target's costliest first, and a total row. */
export function layerRows(baseline: Map<string, number>, baselineRequests: number, target: Map<string, number>, targetRequests: number): string[][] {
  const per = (map: Map<string, number>, layer: string, requests: number) => (map.get(layer) ?? 0) / requests;
  const layers = [...new Set([...target.keys(), ...baseline.keys()])].sort((a, b) => per(target, b, targetRequests) - per(target, a, targetRequests));
  const row = (name: string, b: number, t: number) => [name, b.toFixed(0), t.toFixed(0), `${t - b >= 0 ? '+' : ''}${(t - b).toFixed(0)}`];
  const rows = layers.map((layer) => row(layer, per(baseline, layer, baselineRequests), per(target, layer, targetRequests)));
  const sum = (map: Map<string, number>) => [...map.values()].reduce((total, us) => total + us, 0);
  rows.push(row('**total (sampled)**', sum(baseline) / baselineRequests, sum(target) / targetRequests));
  return rows;
}

if (require.main === module) {
  const [file, from, to] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpuprofile-layers <file.cpuprofile> [fromUs toUs]');
  const totals = profileLayers(readProfile(file), from ? Number(from) : undefined, to ? Number(to) : undefined);
  const all = [...totals.values()].reduce((sum, us) => sum + us, 0);
  for (const [layer, us] of [...totals].sort((a, b) => b[1] - a[1])) {
    process.stdout.write(`${((us * 100) / all).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${layer}\n`);
  }
}
