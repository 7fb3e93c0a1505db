/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time,
 * and self time by package / source area, to see where a server's CPU goes.
 *
 *   node dist/scripts/bench/cpuprofile-summary.js <file.cpuprofile> [top=30]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<pkg>, node:internal, or the repository file. */
function area(url: string): string {
  if (!url) return '(native / VM)';
  if (url.startsWith('node:')) return 'node: internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url;
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpuprofile-summary <file.cpuprofile> [top]');
  const top = Number(topArg ?? 30);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  for (const us of selfUs.values()) total += us;

  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const where = frame.url ? `${area(frame.url)}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byArea.set(area(frame.url), (byArea.get(area(frame.url)) ?? 0) + us);
  }
  const print = (title: string, map: Map<string, number>, limit: number) => {
    process.stdout.write(`\n${title}\n`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      process.stdout.write(`${((us * 100) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}\n`);
    }
  };
  process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
  print('Self time by area', byArea, 25);
  print(`Top ${top} functions by self time`, byFunction, top);

  // Native functions (no url) say little alone: show which code paths call the biggest ones,
  // as the chain of the nearest few JavaScript frames above them.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const describe = (frame: CallFrame) => `${frame.functionName || '(anonymous)'} ${frame.url ? `${area(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();
  const nativeTotals = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (frame && !frame.url && frame.functionName && !frame.functionName.startsWith('(')) {
      nativeTotals.set(frame.functionName, (nativeTotals.get(frame.functionName) ?? 0) + us);
    }
  }
  for (const [name, nativeUs] of [...nativeTotals].sort((a, b) => b[1] - a[1]).slice(0, 4)) {
    const callers = new Map<string, number>();
    for (const [id, us] of selfUs) {
      if (byId.get(id)?.callFrame.functionName !== name || byId.get(id)?.callFrame.url) continue;
      const chain: string[] = [];
      for (let at = parent.get(id); at !== undefined && chain.length < 6; at = parent.get(at)) {
        const frame = byId.get(at)?.callFrame;
        if (frame?.url && !frame.url.startsWith('node:')) chain.push(describe(frame));
      }
      const key = chain.join(' < ') || '(no JavaScript caller)';
      callers.set(key, (callers.get(key) ?? 0) + us);
    }
    print(`Callers of native ${name} (${((nativeUs * 100) / total).toFixed(1)}% self)`, callers, 6);
  }
}

main();
