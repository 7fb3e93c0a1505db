/**
 * `npm run bench:social`: social monitoring.
 *
 * 1. Ingest: 100,000 posts of 20 competitors × 5 platforms over the last 90 days, each with 5
 *    engagement captures (500,000 import rows, every one stating the profile's followers), sent
 *    through `POST /api/social-monitoring/posts/import` as JSON in 10,000-row requests, one after
 *    the other, to Comando's production build. Baseline in the same run: `psql \copy` of the very
 *    rows the import stored (posts, post snapshots, follower snapshots, exported afterwards) into
 *    clones of the same tables (same columns, generated full-text column, indexes, checks and
 *    foreign keys). Goal: import ≥ 25 % of COPY's rate.
 * 2. Comparison: snapshots topped up with SQL past 1,000,000, then
 *    `GET /api/social-monitoring/comparison` for every metric × day/week over 90 days × 20
 *    competitors, sequentially, interleaved with `GET /api/test` measured the same way. Goal: p99
 *    ≤ 100 ms (also shown as a ratio to the baseline's p99).
 *
 * Where time goes: the server's and PostgreSQL's CPU during the import, and in this process the
 * cost per row of the import's own steps (row validation, text analysis) on the same data.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyseSentiment, extractHashtags, extractMentions, matchKeywords } from '../../src/modules/social/social.text';
import { importRow } from '../../src/modules/social/social.schemas';
import {
  benchDatabase,
  benchRedisUrl,
  callJson,
  commandCpuSeconds,
  comandoServer,
  cpuProfileArgs,
  deleteRedisKeys,
  logDir,
  machineCpuSeconds,
  onInterrupt,
  ownCpuSeconds,
  registerFirstAdmin,
  scaled,
  withPg,
  withServer,
} from './lib';
import { markdownTable, publish, runBenchmark } from './report';

const POSTS = scaled(100_000);
const CAPTURES = [1, 6, 24, 48, 72] as const; // hours after publication
const POSTS_PER_REQUEST = 2_000; // × 5 captures = 10,000 rows; a post's captures stay in one request
const COMPETITORS = 20;
const PLATFORMS = ['facebook', 'instagram', 'x', 'youtube', 'tiktok'] as const;
type Platform = (typeof PLATFORMS)[number];
const DAYS = 90;
const STORED_SNAPSHOTS = scaled(1_000_000);
const WARMUP_REQUESTS = 20;
const MEASURED_REQUESTS = 300;
const METRICS = ['followers', 'engagement', 'engagementRate', 'posts', 'sentiment', 'shareOfVoice'] as const;
const INTERVALS = ['day', 'week'] as const;
const IMPORT_MAX_BYTES = 20 * 1024 * 1024;
const goals = { importRatio: 0.25, p99Ms: 100 };

const db = benchDatabase('comando_bench_social');
const REDIS_KEY_PREFIX = 'bench-social';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------------
// Data

/** A deterministic number in [0, 1) for (n, salt): the same posts every run. */
function unit(n: number, salt: number): number {
  let x = Math.imul(n ^ Math.imul(salt, 0x9e3779b1), 0x85ebca6b) ^ 0x27d4eb2f;
  x = Math.imul(x ^ (x >>> 15), 0xc2b2ae35);
  x = Math.imul(x ^ (x >>> 13), 0x165667b1);
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}
const pick = <T>(items: readonly T[], n: number, salt: number): T => items[Math.floor(unit(n, salt) * items.length)]!;

const CANDIDATES = [
  'Laura Restrepo Vélez',
  'Andrés Gómez Arango',
  'María Fernanda Ruiz',
  'Jhon Jairo Palacios',
  'Catalina Londoño',
  'Carlos Arturo Mejía',
  'Luz Marina Cárdenas',
  'Felipe Ochoa Duque',
  'Yuliana Mosquera',
  'Santiago Jaramillo',
  'Paola Andrea Ríos',
  'Julián Henao Toro',
  'Diana Marcela Pérez',
  'Óscar Iván Zapata',
  'Natalia Escobar',
  'Sebastián Uribe Gil',
  'Adriana Montoya',
  'Hernán Darío Tobón',
  'Valentina Salazar',
  'Mauricio Giraldo',
];
const PARTIES = ['Partido Verde', 'Centro Democrático', 'Pacto Histórico', 'Partido Liberal', 'Partido Conservador', 'Independientes', 'Nuevo Liberalismo'];

/** `laurarestrepo`: the candidate's first given name and surname, plain letters. */
function slug(name: string): string {
  const words = name
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .split(/\s+/);
  return `${words[0]}${words.at(-1)}`.slice(0, 12);
}
const handleOf = (competitor: number, platform: Platform) => {
  const base = `${slug(CANDIDATES[competitor]!)}${competitor}`.slice(0, 15);
  return platform === 'youtube' ? `@${base}` : base;
};

const OPENERS = [
  'Hoy estuvimos en',
  'Gran jornada en',
  'Recorrimos',
  'Conversamos con vecinos de',
  'Reunión con líderes comunales de',
  'Desde',
  'Visitamos',
  'Mañana estaremos en',
];
const PLACES = ['Medellín', 'Bello', 'Itagüí', 'Envigado', 'la Comuna 13', 'Manrique', 'Robledo', 'Belén', 'Castilla', 'San Javier', 'Rionegro', 'Sabaneta'];
const TOPICS = [
  'la seguridad de los barrios',
  'el empleo para los jóvenes',
  'la salud pública y los hospitales',
  'la educación y los colegios',
  'la movilidad y el metro',
  'la reforma tributaria',
  'el agua potable en las veredas',
  'las madres cabeza de familia',
  'el campo y los campesinos',
  'la inseguridad en el centro',
];
const POSITIVE = [
  '¡Qué alegría ver tanta gente comprometida!',
  'Gracias por el apoyo, juntos vamos a ganar.',
  'Excelente propuesta, la gente está feliz y con esperanza.',
  'Orgullosos de este equipo maravilloso.',
  'Un éxito total, gracias a todos por venir.',
];
const NEGATIVE = [
  'La corrupción y el abandono son inaceptables.',
  'Es una vergüenza lo que pasa, la gente está cansada y furiosa.',
  'Terrible gestión: la ciudad está peor que nunca.',
  'No más mentiras ni promesas falsas.',
  'Denunciamos el robo descarado de los recursos públicos.',
];
const NEUTRAL = [
  'Les compartimos la agenda de mañana.',
  'Así avanza la jornada de hoy.',
  'Estas son nuestras propuestas para el próximo periodo.',
  'Escuchamos a la comunidad y tomamos nota.',
  'Mañana publicamos el documento completo.',
];
const HASHTAGS = ['#PazTotal', '#SeguridadYa', '#MedellínPrimero', '#EmpleoJoven', '#NoMásCorrupción', '#VotaInformado'];
const KEYWORDS = ['reforma tributaria', 'inseguridad', 'metro', '#PazTotal', 'corrupción'];
const MEDIA = ['text', 'image', 'image', 'video', 'reel'];

interface Competitor {
  id: string;
  index: number;
}

/** A post's text: a place, a topic, a polar or factual sentence, often a hashtag, sometimes a mention or a link. */
function textOf(n: number): string {
  const mood = unit(n, 3);
  const sentence = mood < 0.35 ? pick(POSITIVE, n, 4) : mood < 0.6 ? pick(NEGATIVE, n, 4) : pick(NEUTRAL, n, 4);
  let text = `${pick(OPENERS, n, 5)} ${pick(PLACES, n, 6)} hablando de ${pick(TOPICS, n, 7)}. ${sentence}`;
  if (unit(n, 8) < 0.7) text += ` ${pick(HASHTAGS, n, 9)}`;
  // Some posts mention a rival's X account, ours (competitor 0) among them.
  if (unit(n, 10) < 0.15) text += ` @${handleOf(Math.floor(unit(n, 11) * COMPETITORS), 'x')}`;
  if (unit(n, 12) < 0.2) text += ` https://ejemplo.co/p/${n.toString(36)}`;
  return text;
}

function postUrl(platform: Platform, competitor: number, postId: string): string {
  const handle = handleOf(competitor, platform);
  switch (platform) {
    case 'x':
      return `https://x.com/${handle}/status/${postId}`;
    case 'instagram':
      return `https://www.instagram.com/p/${postId}/`;
    case 'facebook':
      return `https://www.facebook.com/${handle}/posts/${postId}`;
    case 'youtube':
      return `https://www.youtube.com/watch?v=${postId}`;
    case 'tiktok':
      return `https://www.tiktok.com/@${handle}/video/${postId}`;
  }
}

/** The profile's followers at `at`: a size of its own and a steady drift, up for most. */
function followersAt(competitor: number, platform: Platform, at: number, now: number): number {
  const profile = competitor * PLATFORMS.length + PLATFORMS.indexOf(platform);
  const base = 20_000 + Math.floor(unit(profile, 20) * 480_000);
  const dailyChange = base * 0.002 * (unit(profile, 21) - 0.3);
  return Math.max(0, Math.round(base - dailyChange * ((now - at) / DAY)));
}

interface ImportRowData {
  platform: Platform;
  competitorId: string;
  postId: string;
  publishedAt: string;
  text: string;
  url: string;
  mediaType: string;
  likes: number;
  comments: number;
  shares: number;
  views: number;
  followers: number;
  capturedAt: string;
}

/** Share of a post's final counts reached at each capture. */
const GROWTH = [0.35, 0.7, 0.9, 0.97, 1];

/** Post n's five captures: counts grow between them; a post younger than 72 h has them squeezed into its age. */
function rowsOfPost(n: number, competitors: readonly Competitor[], now: number): ImportRowData[] {
  const competitor = n % COMPETITORS;
  const platform = PLATFORMS[Math.floor(n / COMPETITORS) % PLATFORMS.length]!;
  const published = now - 10 * 60_000 - Math.floor(unit(n, 1) * (DAYS * DAY - 2 * HOUR));
  const squeeze = Math.min(1, (now - published) / (CAPTURES.at(-1)! * HOUR + 60_000));
  const popularity = 0.3 + 2 * unit(competitor, 30);
  const viral = unit(n, 2) > 0.995 ? 20 : 1;
  const finalLikes = Math.round(popularity * 800 * (0.2 + unit(n, 13) ** 3 * 5) * viral);
  const postId = String(7_000_000_000 + n);
  const text = textOf(n);
  return CAPTURES.map((hours, k) => {
    const captured = published + Math.round(hours * HOUR * squeeze);
    const share = GROWTH[k]!;
    return {
      platform,
      competitorId: competitors[competitor]!.id,
      postId,
      publishedAt: new Date(published).toISOString(),
      text,
      url: postUrl(platform, competitor, postId),
      mediaType: pick(MEDIA, n, 14),
      likes: Math.round(finalLikes * share) + k,
      comments: Math.round(finalLikes * 0.08 * share) + k,
      shares: Math.round(finalLikes * 0.05 * share),
      views: Math.round(finalLikes * 25 * share) + k,
      followers: followersAt(competitor, platform, captured, now),
      capturedAt: new Date(captured).toISOString(),
    };
  });
}

function batchRows(first: number, count: number, competitors: readonly Competitor[], now: number): ImportRowData[] {
  const rows: ImportRowData[] = [];
  for (let n = first; n < first + count; n++) rows.push(...rowsOfPost(n, competitors, now));
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers

/** User + system CPU seconds of one process so far (Linux /proc). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds used so far: the server process, PostgreSQL (all backends), this process, and the whole machine. */
interface CpuProbe {
  server: number;
  postgres: number;
  loadGenerator: number;
  machine: number;
}
const NO_CPU: CpuProbe = { server: 0, postgres: 0, loadGenerator: 0, machine: 0 };
function cpuNow(serverPid: number): CpuProbe {
  return { server: processCpuSeconds(serverPid), postgres: commandCpuSeconds('postgres') ?? NaN, loadGenerator: ownCpuSeconds(), machine: machineCpuSeconds() ?? NaN };
}
const cpuSince = (before: CpuProbe, after: CpuProbe): CpuProbe => ({
  server: after.server - before.server,
  postgres: after.postgres - before.postgres,
  loadGenerator: after.loadGenerator - before.loadGenerator,
  machine: after.machine - before.machine,
});
const cpuSum = (a: CpuProbe, b: CpuProbe): CpuProbe => ({
  server: a.server + b.server,
  postgres: a.postgres + b.postgres,
  loadGenerator: a.loadGenerator + b.loadGenerator,
  machine: a.machine + b.machine,
});
/** Busy CPU of the machine not spent by the server, PostgreSQL or this process: other programs sharing the cores (PostgreSQL's share includes other databases' backends). */
const otherCpu = (cpu: CpuProbe) => Math.max(0, cpu.machine - cpu.server - cpu.postgres - cpu.loadGenerator);

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface Latency {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}
function latencyOf(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? NaN };
}

/** One sequential GET: milliseconds until the whole answer is read; throws on anything but 200. */
async function timedGet(url: string, token?: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
  return { ms, body };
}

function psql(args: string[]): void {
  const result = spawnSync('psql', [db.url, '-v', 'ON_ERROR_STOP=1', '-q', ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`psql failed: ${result.stderr || result.error?.message}`);
}

// ---------------------------------------------------------------------------------------------
// Phases

async function setUp(baseUrl: string): Promise<{ token: string; competitors: Competitor[] }> {
  const token = await registerFirstAdmin(baseUrl);
  const competitors: Competitor[] = [];
  for (let index = 0; index < COMPETITORS; index++) {
    const created = await callJson<{ id: string; profiles: unknown[] }>(`${baseUrl}/api/social-monitoring/competitors`, {
      token,
      expect: 201,
      body: {
        name: CANDIDATES[index],
        party: PARTIES[index % PARTIES.length],
        colour: `#${Math.floor(unit(index, 40) * 0xffffff)
          .toString(16)
          .padStart(6, '0')}`,
        isOwn: index === 0,
        // Imports only: nothing polls a platform during the run.
        profiles: PLATFORMS.map((platform) => ({ platform, handle: handleOf(index, platform), source: 'import' })),
      },
    });
    if (created.profiles.length !== PLATFORMS.length) throw new Error(`competitor ${index} has ${created.profiles.length} profiles`);
    competitors.push({ id: created.id, index });
  }
  // A keyword rule, so every post is matched against keywords as well as our names.
  await callJson(`${baseUrl}/api/social-monitoring/alert-rules`, {
    token,
    expect: 201,
    body: { kind: 'keyword', name: 'Temas de campaña', severity: 'warning', params: { keywords: KEYWORDS } },
  });
  return { token, competitors };
}

interface ImportResult {
  seconds: number;
  requests: number;
  largestBodyMiB: number;
  answers: { created: number; updated: number; snapshots: number; rejected: number };
  cpu: CpuProbe;
  slowestRequestSeconds: number;
  firstRequestSeconds: number;
  lastRequestSeconds: number;
}

async function runImport(baseUrl: string, serverPid: number, token: string, competitors: readonly Competitor[], now: number): Promise<ImportResult> {
  const answers = { created: 0, updated: 0, snapshots: 0, rejected: 0 };
  let seconds = 0;
  let largest = 0;
  let requests = 0;
  const perRequest: number[] = [];
  let cpu = NO_CPU;
  for (let first = 0; first < POSTS; first += POSTS_PER_REQUEST) {
    // Building and serialising the body is the client's work, outside the clock.
    const body = JSON.stringify({ posts: batchRows(first, Math.min(POSTS_PER_REQUEST, POSTS - first), competitors, now) });
    const bytes = Buffer.byteLength(body);
    if (bytes > IMPORT_MAX_BYTES) throw new Error(`an import body of ${bytes} bytes is over the 20 MB limit`);
    largest = Math.max(largest, bytes);
    const before = cpuNow(serverPid);
    const started = performance.now();
    const response = await fetch(`${baseUrl}/api/social-monitoring/posts/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    const text = await response.text();
    const took = (performance.now() - started) / 1000;
    const spent = cpuSince(before, cpuNow(serverPid));
    cpu = cpuSum(cpu, spent);
    if (response.status !== 200) throw new Error(`import answered ${response.status}: ${text.slice(0, 500)}`);
    const answer = JSON.parse(text) as { created: number; updated: number; snapshots: number; rejected: { index: number; reason: string }[] };
    if (answer.rejected.length) process.stdout.write(`  rejected, e.g.: ${JSON.stringify(answer.rejected.slice(0, 3))}\n`);
    answers.created += answer.created;
    answers.updated += answer.updated;
    answers.snapshots += answer.snapshots;
    answers.rejected += answer.rejected.length;
    seconds += took;
    requests++;
    perRequest.push(took);
    if (requests % 10 === 0) process.stdout.write(`  ${requests} requests, ${first + POSTS_PER_REQUEST} posts, ${seconds.toFixed(1)} s\n`);
  }
  return {
    seconds,
    requests,
    largestBodyMiB: largest / 2 ** 20,
    answers,
    cpu,
    slowestRequestSeconds: Math.max(...perRequest),
    firstRequestSeconds: perRequest[0] ?? NaN,
    lastRequestSeconds: perRequest.at(-1) ?? NaN,
  };
}

const POST_COLUMNS =
  'id, platform, platform_post_id, competitor_id, profile_id, published_at, text, url, media_type, likes, comments, shares, views, engagement, engagement_rate, sentiment_score, sentiment_label, hashtags, mentions, keywords, mentions_us, first_seen_at, last_snapshot_at';
const SNAPSHOT_COLUMNS = 'post_id, captured_at, likes, comments, shares, views, engagement';
const FOLLOWER_COLUMNS = 'profile_id, captured_at, followers';

interface CopyResult {
  seconds: number;
  rows: { posts: number; snapshots: number; followers: number };
  cpu: CpuProbe;
  csvMiB: number;
}

/**
 * The baseline: the rows the import stored, exported to CSV (untimed), then `psql \copy` into
 * clones of the three tables (timed: one psql process, three COPYs), the clones dropped after.
 */
async function runCopy(serverPid: number): Promise<CopyResult> {
  const files = { posts: path.join(logDir, 'social-posts.csv'), snapshots: path.join(logDir, 'social-snapshots.csv'), followers: path.join(logDir, 'social-followers.csv') };
  psql([
    '-c',
    `\\copy (select ${POST_COLUMNS} from social_posts) to '${files.posts}' with (format csv)`,
    '-c',
    `\\copy (select ${SNAPSHOT_COLUMNS} from social_post_snapshots) to '${files.snapshots}' with (format csv)`,
    '-c',
    `\\copy (select ${FOLLOWER_COLUMNS} from social_follower_snapshots) to '${files.followers}' with (format csv)`,
  ]);
  const csvMiB = Object.values(files).reduce((sum, file) => sum + statSync(file).size, 0) / 2 ** 20;
  await withPg(db.url, async (client) => {
    await client.query('drop schema if exists bench_copy cascade');
    await client.query('create schema bench_copy');
    // LIKE … INCLUDING ALL: same columns, defaults, the generated tsvector, checks and indexes; the foreign keys are added as the originals have them.
    await client.query(`create table bench_copy.social_posts (like public.social_posts including all);
      alter table bench_copy.social_posts
        add foreign key (competitor_id) references public.social_competitors (id) on update cascade on delete cascade,
        add foreign key (profile_id) references public.social_profiles (id) on update cascade on delete set null;
      create table bench_copy.social_post_snapshots (like public.social_post_snapshots including all);
      alter table bench_copy.social_post_snapshots add foreign key (post_id) references bench_copy.social_posts (id) on update cascade on delete cascade;
      create table bench_copy.social_follower_snapshots (like public.social_follower_snapshots including all);
      alter table bench_copy.social_follower_snapshots add foreign key (profile_id) references public.social_profiles (id) on update cascade on delete cascade;
      checkpoint`);
  });
  const before = cpuNow(serverPid);
  const started = performance.now();
  psql([
    '-c',
    `\\copy bench_copy.social_posts (${POST_COLUMNS}) from '${files.posts}' with (format csv)`,
    '-c',
    `\\copy bench_copy.social_post_snapshots (${SNAPSHOT_COLUMNS}) from '${files.snapshots}' with (format csv)`,
    '-c',
    `\\copy bench_copy.social_follower_snapshots (${FOLLOWER_COLUMNS}) from '${files.followers}' with (format csv)`,
  ]);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSince(before, cpuNow(serverPid));
  const rows = await withPg(db.url, async (client) => {
    const { rows: counted } = await client.query<{ posts: number; snapshots: number; followers: number }>(
      `select (select count(*)::int from bench_copy.social_posts) as posts, (select count(*)::int from bench_copy.social_post_snapshots) as snapshots,
        (select count(*)::int from bench_copy.social_follower_snapshots) as followers`,
    );
    await client.query('drop schema bench_copy cascade');
    return counted[0]!;
  });
  for (const file of Object.values(files)) rmSync(file, { force: true });
  return { seconds, rows, cpu, csvMiB };
}

/** More captures per post (between and after the imported ones, never in the future) until the table holds STORED_SNAPSHOTS. */
async function topUpSnapshots(): Promise<{ snapshots: number; followers: number; posts: number; seconds: number }> {
  const started = performance.now();
  return withPg(db.url, async (client) => {
    const count = async (table: string) => Number((await client.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]?.n ?? 0);
    let snapshots = await count('social_post_snapshots');
    for (const hours of [96, 120, 144, 168, 192, 216, 240, 12, 36, 60, 3, 9, 18, 30]) {
      if (snapshots >= STORED_SNAPSHOTS) break;
      await client.query(
        `insert into social_post_snapshots (post_id, captured_at, likes, comments, shares, views, engagement)
         select p.id, c.at, c.likes, c.comments, c.shares, c.views, c.likes + c.comments + c.shares
         from social_posts p
         cross join lateral (select p.published_at + make_interval(hours => $1::int) as at,
           round(coalesce(p.likes, 0) * least(1.0, $1::int / 72.0))::bigint + greatest(0, $1::int - 72) / 24 as likes,
           round(coalesce(p.comments, 0) * least(1.0, $1::int / 72.0))::bigint as comments,
           round(coalesce(p.shares, 0) * least(1.0, $1::int / 72.0))::bigint as shares,
           round(coalesce(p.views, 0) * least(1.0, $1::int / 72.0))::bigint + greatest(0, $1::int - 72) as views) c
         where c.at < now()
         on conflict (post_id, captured_at) do nothing`,
        [hours],
      );
      snapshots = await count('social_post_snapshots');
    }
    // As after autovacuum caught up with the bulk load.
    await client.query('vacuum analyze social_posts, social_post_snapshots, social_follower_snapshots, social_profiles, social_competitors');
    return { snapshots, followers: await count('social_follower_snapshots'), posts: await count('social_posts'), seconds: (performance.now() - started) / 1000 };
  });
}

interface ComparisonResult {
  byCombination: Map<string, number[]>;
  comparison: Latency;
  baseline: Latency;
  listBaseline: Latency;
  buckets: Record<string, number>;
  /** During the measured requests. */
  cpu: CpuProbe;
  seconds: number;
}

async function runComparison(baseUrl: string, serverPid: number, token: string): Promise<ComparisonResult> {
  const to = new Date();
  const from = new Date(to.getTime() - DAYS * DAY);
  const combos = METRICS.flatMap((metric) => INTERVALS.map((interval) => ({ metric, interval })));
  const urlOf = (i: number) => {
    const { metric, interval } = combos[i % combos.length]!;
    return `${baseUrl}/api/social-monitoring/comparison?metric=${metric}&interval=${interval}&from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
  };
  const buckets: Record<string, number> = {};
  // The answers' shape, once per combination: 20 series with one value per bucket.
  for (let i = 0; i < combos.length; i++) {
    const { body } = await timedGet(urlOf(i), token);
    const answer = JSON.parse(body) as { buckets: string[]; series: { values: unknown[] }[] };
    if (answer.series.length !== COMPETITORS || answer.series.some((series) => series.values.length !== answer.buckets.length)) {
      throw new Error(`comparison ${JSON.stringify(combos[i])}: ${answer.series.length} series over ${answer.buckets.length} buckets`);
    }
    buckets[combos[i]!.interval] = answer.buckets.length;
  }
  const listUrl = `${baseUrl}/api/social-monitoring/competitors?limit=20`;
  for (let i = 0; i < WARMUP_REQUESTS; i++) {
    await timedGet(urlOf(i), token);
    await timedGet(`${baseUrl}/api/test`);
    await timedGet(listUrl, token);
  }
  const byCombination = new Map<string, number[]>();
  const all: number[] = [];
  const baseline: number[] = [];
  const listBaseline: number[] = [];
  const before = cpuNow(serverPid);
  const started = performance.now();
  // Interleaved, so that whatever else the machine does falls on all of them alike.
  for (let i = 0; i < MEASURED_REQUESTS; i++) {
    const { ms } = await timedGet(urlOf(i), token);
    const { metric, interval } = combos[i % combos.length]!;
    const key = `${metric}/${interval}`;
    byCombination.set(key, [...(byCombination.get(key) ?? []), ms]);
    all.push(ms);
    baseline.push((await timedGet(`${baseUrl}/api/test`)).ms);
    listBaseline.push((await timedGet(listUrl, token)).ms);
  }
  const cpu = cpuSince(before, cpuNow(serverPid));
  const seconds = (performance.now() - started) / 1000;
  return { byCombination, comparison: latencyOf(all), baseline: latencyOf(baseline), listBaseline: latencyOf(listBaseline), buckets, cpu, seconds };
}

interface Breakdown {
  validateUsPerRow: number;
  textUsPerPost: number;
  jsonParseUsPerRow: number;
}

/**
 * The import's CPU steps replayed in this process on the same data (one sample of rows for the
 * per-row steps, every post for the text analysis), to set against the server's measured CPU.
 */
function breakdown(competitors: readonly Competitor[], now: number): Breakdown {
  const sample = batchRows(0, 10_000, competitors, now); // 50,000 rows
  const body = JSON.stringify({ posts: sample });
  JSON.parse(body);
  let started = performance.now();
  JSON.parse(body);
  const jsonParseUsPerRow = ((performance.now() - started) * 1000) / sample.length;
  for (const row of sample.slice(0, 2000)) importRow.safeParse(row);
  started = performance.now();
  for (const row of sample) importRow.safeParse(row);
  const validateUsPerRow = ((performance.now() - started) * 1000) / sample.length;
  const ownNames = [CANDIDATES[0]!, ...PLATFORMS.map((platform) => handleOf(0, platform).replace(/^@/, ''))];
  const texts = Array.from({ length: POSTS }, (_, n) => textOf(n));
  for (const text of texts.slice(0, 2000)) analyseSentiment(text);
  started = performance.now();
  for (const text of texts) {
    analyseSentiment(text);
    extractHashtags(text);
    extractMentions(text);
    matchKeywords(text, ownNames);
    matchKeywords(text, KEYWORDS);
  }
  const textUsPerPost = ((performance.now() - started) * 1000) / texts.length;
  return { validateUsPerRow, textUsPerPost, jsonParseUsPerRow };
}

// ---------------------------------------------------------------------------------------------
// Run and report

interface Results {
  imported: ImportResult;
  stored: { posts: number; snapshots: number; followers: number };
  copy: CopyResult;
  topUp: Awaited<ReturnType<typeof topUpSnapshots>>;
  comparison: ComparisonResult;
  breakdown: Breakdown;
}

async function runAll(): Promise<Results> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const server = comandoServer({ name: 'comando-social', databaseUrl: db.url, redisKeyPrefix: REDIS_KEY_PREFIX, nodeArgs: cpuProfileArgs(), logLevel: 'warn' });
  return withServer(server, async (running) => {
    const { token, competitors } = await setUp(running.url);
    const now = Date.now() - 60_000;
    // Both ingests start from a fresh checkpoint.
    await withPg(db.url, (client) => client.query('checkpoint'));
    log(`importing ${POSTS} posts × ${CAPTURES.length} captures in ${Math.ceil(POSTS / POSTS_PER_REQUEST)} requests …`);
    const imported = await runImport(running.url, running.pid, token, competitors, now);
    log(`  ${imported.seconds.toFixed(1)} s, ${Math.round((POSTS * CAPTURES.length) / imported.seconds)} rows/s`);
    const stored = await withPg(db.url, async (client) => {
      const { rows } = await client.query<{ posts: number; snapshots: number; followers: number }>(
        `select (select count(*)::int from social_posts) as posts, (select count(*)::int from social_post_snapshots) as snapshots,
          (select count(*)::int from social_follower_snapshots) as followers`,
      );
      return rows[0]!;
    });
    log('psql \\copy of the same rows into clones of the tables …');
    const copy = await runCopy(running.pid);
    log(`  ${copy.seconds.toFixed(1)} s`);
    log(`topping snapshots up to ${STORED_SNAPSHOTS} …`);
    const topUp = await topUpSnapshots();
    log(`  ${topUp.snapshots} snapshots, ${topUp.followers} follower snapshots (${topUp.seconds.toFixed(1)} s)`);
    log(`comparison: ${WARMUP_REQUESTS} warm-up + ${MEASURED_REQUESTS} measured requests, interleaved with GET /api/test …`);
    const comparison = await runComparison(running.url, running.pid, token);
    log('replaying the import steps in this process …');
    return { imported, stored, copy, topUp, comparison, breakdown: breakdown(competitors, now) };
  });
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

function report(r: Results): void {
  const observations = POSTS * CAPTURES.length;
  const copyRows = r.copy.rows.posts + r.copy.rows.snapshots + r.copy.rows.followers;
  const storedRows = r.stored.posts + r.stored.snapshots + r.stored.followers;
  const importRate = observations / r.imported.seconds;
  const copyRate = observations / r.copy.seconds;
  const ratio = importRate / copyRate; // = COPY seconds ÷ import seconds for the same rows
  const importTable = markdownTable(
    ['Target', 'Seconds', 'Import rows/s (observations)', 'Posts/s', 'Table rows written/s', 'Server CPU (s)', 'PostgreSQL CPU (s)', 'Ratio'],
    [
      [
        '`psql \\copy` of the stored rows into clone tables (baseline)',
        fixed(r.copy.seconds, 2),
        thousands(copyRate),
        thousands(POSTS / r.copy.seconds),
        thousands(copyRows / r.copy.seconds),
        fixed(r.copy.cpu.server, 1),
        fixed(r.copy.cpu.postgres, 1),
        'baseline',
      ],
      [
        '**Comando `POST /api/social-monitoring/posts/import`**',
        fixed(r.imported.seconds, 2),
        thousands(importRate),
        thousands(POSTS / r.imported.seconds),
        thousands(storedRows / r.imported.seconds),
        fixed(r.imported.cpu.server, 1),
        fixed(r.imported.cpu.postgres, 1),
        `${fixed(ratio, 2)} ×`,
      ],
    ],
  );
  const perRow = (seconds: number) => fixed((seconds * 1e6) / observations, 1);
  const b = r.breakdown;
  const whereTable = markdownTable(
    ['Import, CPU per observation (µs)', 'Measured / replayed'],
    [
      ['Comando server process (whole import, measured)', perRow(r.imported.cpu.server)],
      ['PostgreSQL, all backends (during the import, measured)', perRow(r.imported.cpu.postgres)],
      ['PostgreSQL during `\\copy` of the same rows (measured)', perRow(r.copy.cpu.postgres)],
      ['… of which JSON.parse of the body (replayed)', fixed(b.jsonParseUsPerRow, 1)],
      ['… of which zod row validation, `importRow.safeParse` (replayed)', fixed(b.validateUsPerRow, 1)],
      ['… of which text analysis per post ÷ 5 (sentiment, hashtags, mentions, keywords; replayed)', fixed(b.textUsPerPost / CAPTURES.length, 1)],
    ],
  );
  const phase = (name: string, seconds: number, cpu: CpuProbe) => [
    name,
    fixed(seconds, 1),
    fixed(cpu.server, 1),
    fixed(cpu.postgres, 1),
    fixed(cpu.loadGenerator, 1),
    fixed(otherCpu(cpu), 1),
    `${fixed((cpu.machine / seconds / os.cpus().length) * 100)} %`,
  ];
  const cpuTable = markdownTable(
    ['Phase', 'Wall (s)', 'Server CPU (s)', 'PostgreSQL CPU (s)', 'Load generator CPU (s)', 'Other programs CPU (s)', `Machine busy (${os.cpus().length} cores)`],
    [
      phase('Import (sum of the requests)', r.imported.seconds, r.imported.cpu),
      phase('`\\copy`', r.copy.seconds, r.copy.cpu),
      phase('Comparison + baselines (measured requests)', r.comparison.seconds, r.comparison.cpu),
    ],
  );
  const metricRows = METRICS.map((metric) => {
    const samples = INTERVALS.flatMap((interval) => r.comparison.byCombination.get(`${metric}/${interval}`) ?? []);
    const lat = latencyOf(samples);
    const day = latencyOf(r.comparison.byCombination.get(`${metric}/day`) ?? []);
    const week = latencyOf(r.comparison.byCombination.get(`${metric}/week`) ?? []);
    return [metric, String(lat.count), fixed(lat.p50, 1), fixed(lat.p95, 1), fixed(lat.p99, 1), fixed(day.p50, 1), fixed(week.p50, 1)];
  });
  const c = r.comparison;
  const latencyTable = markdownTable(
    ['Request', 'n', 'p50 (ms)', 'p95 (ms)', 'p99 (ms)', 'day p50', 'week p50'],
    [
      ...metricRows,
      ['**comparison, all**', String(c.comparison.count), fixed(c.comparison.p50, 1), fixed(c.comparison.p95, 1), `**${fixed(c.comparison.p99, 1)}**`, '', ''],
      ['GET /api/test (baseline)', String(c.baseline.count), fixed(c.baseline.p50, 1), fixed(c.baseline.p95, 1), fixed(c.baseline.p99, 1), '', ''],
      [
        'GET …/competitors?limit=20 (authenticated list)',
        String(c.listBaseline.count),
        fixed(c.listBaseline.p50, 1),
        fixed(c.listBaseline.p95, 1),
        fixed(c.listBaseline.p99, 1),
        '',
        '',
      ],
    ],
  );
  const a = r.imported.answers;
  const complete = a.created === POSTS && a.snapshots === observations && a.rejected === 0 && r.stored.posts === POSTS && r.stored.snapshots === observations;
  const sameRows = r.copy.rows.posts === r.stored.posts && r.copy.rows.snapshots === r.stored.snapshots && r.copy.rows.followers === r.stored.followers;
  const verdicts: Array<[string, string, string, boolean]> = [
    ['Import rate vs `\\copy` of the same rows', `≥ ${goals.importRatio}`, fixed(ratio, 3), ratio >= goals.importRatio],
    [
      `Comparison p99 (90 days × ${COMPETITORS} competitors, ${fixed(r.topUp.snapshots / 1e6, 2)} M snapshots stored)`,
      `≤ ${goals.p99Ms} ms`,
      `${fixed(c.comparison.p99, 1)} ms`,
      c.comparison.p99 <= goals.p99Ms,
    ],
    [
      'Every post and capture stored, none rejected; `\\copy` got the same rows',
      `${POSTS} / ${observations} / 0`,
      `${a.created} / ${a.snapshots} / ${a.rejected}; ${sameRows ? 'same' : 'different'}`,
      complete && sameRows,
    ],
    [`Snapshots stored for the comparison`, `≥ ${thousands(STORED_SNAPSHOTS)}`, thousands(r.topUp.snapshots), r.topUp.snapshots >= STORED_SNAPSHOTS],
  ];
  publish({
    id: 'social',
    title: 'Social monitoring',
    command: 'npm run bench:social',
    blocks: [
      `Comando's production build (\`node dist/src/main.js\`, \`NODE_ENV=production\`, PostgreSQL \`${db.name}\` created for the run
and dropped after it, Redis under its own key prefix). Set up through the API: ${COMPETITORS} competitors (one ours), each with
${PLATFORMS.length} import-fed profiles (${PLATFORMS.join(', ')}), and a keyword rule beside the default rules.

**Ingest.** ${thousands(POSTS)} posts spread over the last ${DAYS} days, Spanish campaign text (places, topics, positive /
negative / factual sentences, hashtags, some mentions of the candidates' accounts and links), each with ${CAPTURES.length}
captures (${CAPTURES.join(', ')} h after publication, squeezed into the age of younger posts) with growing likes,
comments, shares and views and the profile's followers: ${thousands(observations)} import rows, sent as JSON in
${r.imported.requests} sequential requests of ${thousands(POSTS_PER_REQUEST * CAPTURES.length)} rows (largest body ${fixed(r.imported.largestBodyMiB, 1)} MiB; limit 20 MB).
Time is the sum of the requests (building the bodies is not counted). The server validates each row, analyses each
post's text, upserts the posts, writes the snapshots and follower snapshots and evaluates the alert rules; it
stored ${thousands(r.stored.posts)} posts, ${thousands(r.stored.snapshots)} snapshots and ${thousands(r.stored.followers)} follower snapshots
(${thousands(storedRows)} rows). The baseline, measured in the same run, is \`psql \\copy\` of exactly those stored rows
(exported afterwards, ${fixed(r.copy.csvMiB, 0)} MiB of CSV) into clones of the three tables — same columns, generated
full-text column, checks, indexes and foreign keys — in one psql process. "Import rows/s" counts the
${thousands(observations)} observations for both; the ratio is COPY's time ÷ the import's time.
Per request: first ${fixed(r.imported.firstRequestSeconds, 2)} s, last ${fixed(r.imported.lastRequestSeconds, 2)} s, slowest ${fixed(r.imported.slowestRequestSeconds, 2)} s.

${importTable}

${whereTable}

CPU by phase ("other programs" is busy time of the machine outside these processes — another test run sharing the
cores; when it is large the phase's times are inflated):

${cpuTable}

**Comparison.** Snapshots then topped up with SQL (more captures per post) to ${thousands(r.topUp.snapshots)}, with
${thousands(r.topUp.followers)} follower snapshots, and \`vacuum analyze\`d. \`GET /api/social-monitoring/comparison\` over the last ${DAYS}
days (${c.buckets.day ?? '?'} daily / ${c.buckets.week ?? '?'} weekly buckets × ${COMPETITORS} competitors), the ${METRICS.length} metrics × day/week in turn,
${WARMUP_REQUESTS} warm-up then ${MEASURED_REQUESTS} measured requests, one at a time, each followed by \`GET /api/test\` and an
authenticated competitor list measured the same way (the time until the whole answer is read).

${latencyTable}

Comparison p99 ÷ \`GET /api/test\` p99: ${fixed(c.comparison.p99 / c.baseline.p99, 1)} × (${fixed(c.comparison.p99, 1)} ms ÷ ${fixed(c.baseline.p99, 1)} ms).`,
      { goals: verdicts.map(([goal, target, measured, pass]) => ({ goal, target, measured, pass })) },
    ],
  });
}

async function cleanUp(): Promise<void> {
  await db.dropAtEnd();
  await deleteRedisKeys(benchRedisUrl, `${REDIS_KEY_PREFIX}:`).catch(() => undefined);
}

runBenchmark(async () => {
  onInterrupt(cleanUp);
  let results: Results;
  try {
    await db.recreate();
    await deleteRedisKeys(benchRedisUrl, `${REDIS_KEY_PREFIX}:`);
    results = await runAll();
  } finally {
    await cleanUp();
  }
  report(results);
});
