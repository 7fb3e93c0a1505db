import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The rules the container recipe must keep, checked on its text (no image is built in CI): the
 * points a Dockerfile linter such as hadolint would raise that matter here, and the compose
 * file's secrets.
 */
const deploy = path.join(__dirname, '..', '..', 'deploy');
const read = (name: string) => readFileSync(path.join(deploy, name), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

describe('deploy/Dockerfile', () => {
  const all = instructions(read('Dockerfile'));
  const stages = all.reduce<Instruction[][]>((list, instruction) => {
    if (instruction.keyword === 'FROM') list.push([]);
    list.at(-1)?.push(instruction);
    return list;
  }, []);
  const final = stages.at(-1)!;
  const args = new Map(all.filter((i) => i.keyword === 'ARG' && i.args.includes('=')).map((i) => [i.args.split('=')[0]!, i.args.split('=').slice(1).join('=')]));
  const image = (from: string) => from.split(/\s+/)[0]!.replace(/^\$\{(\w+)\}$/, (_, name: string) => args.get(name) ?? '');

  it('builds in one stage and runs from another, both on a pinned Node 24 image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      const base = image(stage[0]!.args);
      expect(base).toMatch(/^node:24\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/);
    }
  });

  it('installs without dev dependencies after the build, and copies only what runs', () => {
    const build = stages[0]!.map((i) => i.args).join('\n');
    expect(build.indexOf('npm run build')).toBeGreaterThan(-1);
    expect(build.indexOf('npm ci --omit=dev')).toBeGreaterThan(build.indexOf('npm run build'));
    expect(final.filter((i) => i.keyword === 'COPY').every((i) => i.args.startsWith('--from='))).toBe(true);
  });

  it('runs as a user that is not root, with a health check, started by node itself', () => {
    const users = final.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    const healthcheck = final.find((i) => i.keyword === 'HEALTHCHECK');
    expect(healthcheck?.args).toMatch(/\/(readyz|api\/test)/);
    const cmd = final.find((i) => i.keyword === 'CMD');
    expect(JSON.parse(cmd!.args)).toEqual(['node', '--max-semi-space-size=32', 'dist/src/main.js']);
  });

  it('bakes no secret in', () => {
    for (const { keyword, args: text } of all.filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG')) {
      expect(`${keyword} ${text}`).not.toMatch(/(SECRET|PASSWORD|TOKEN|ACCESS_KEY|DATABASE_URL|REDIS_URL)\w*\s*=/i);
    }
    expect(readFileSync(path.join(__dirname, '..', '..', '.dockerignore'), 'utf8')).toMatch(/^\.env$/m);
  });
});

describe('deploy/compose.yaml and deploy/haproxy.cfg', () => {
  const compose = read('compose.yaml');
  const haproxy = read('haproxy.cfg');

  it('takes every secret from the environment', () => {
    for (const name of ['POSTGRES_PASSWORD', 'JWT_SECRET', 'S3_SECRET_ACCESS_KEY', 'MINIO_ROOT_PASSWORD', 'METRICS_TOKEN']) {
      for (const line of compose.split('\n').filter((text) => text.trim().startsWith(`${name}:`))) expect(line).toMatch(/\$\{[A-Z0-9_]+(:[?-][^}]*)?\}/);
    }
  });

  it('runs three Comando processes on PostgreSQL, Redis and a shared S3 store, behind the balancer', () => {
    expect(compose.match(/^ {2}comando-\d:/gm)).toHaveLength(3);
    expect(compose).toMatch(/FILE_STORE: s3/);
    expect(compose).toMatch(/appendonly', 'yes'/);
    for (const server of ['comando-1', 'comando-2', 'comando-3']) expect(haproxy).toContain(`server ${server} ${server}:3000`);
    // Socket.IO's path goes to its own backend; the health check is readiness.
    expect(haproxy).toMatch(/use_backend sockets if \{ path_beg \/socket\.io\/ \}/);
    expect(haproxy).toMatch(/option httpchk GET \/readyz/);
    expect(haproxy).toMatch(/timeout tunnel/);
  });
});
