/**
 * Poster codes at print-run scale: how long minting 12 × 500 codes takes, and what the printable
 * sheet of those 6,000 codes costs (time to the last byte and bytes, uncompressed), first and second
 * time (the second shows what caching buys), and one code's SVG. Runs the built server as
 * `npm start` does on a throw-away database. No goal: the figures show what paging and the image
 * cache buy.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { benchDatabase, benchRedisUrl, callJson, comandoServer, deleteRedisKeys, onInterrupt, registerFirstAdmin, withServer } from './lib';
import { publish, runBenchmark } from './report';

const BATCHES = 12;
const BATCH_SIZE = 500;
const REDIS_KEY_PREFIX = `bench-qr-sheet-${randomBytes(4).toString('hex')}`;
const database = benchDatabase('comando_bench_qr_sheet');

const CONSENT_TEXT =
  'Autorizo a la Campaña Ejemplo, responsable del tratamiento, a usar mis datos para informarme de sus propuestas y actividades, según la Ley 1581 de 2012. Puedo conocer, actualizar, rectificar y suprimir mis datos escribiendo a datos@ejemplo.co.';

/** Time to the last byte and the body's size, without compression (what a slow printer PC downloads at worst). */
async function timedGet(url: string, token: string): Promise<{ status: number; ms: number; bytes: number; text: string }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' } });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, bytes: Buffer.byteLength(text), text };
}

const fmtMs = (ms: number) => `${Math.round(ms)} ms`;
const fmtKb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
/** What the wire carries with compression on (the app gzips HTML above 2 KB); measured here to keep the timing uncompressed. */
const gzipKb = (text: string) => fmtKb(gzipSync(text).length);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

runBenchmark(async () => {
  onInterrupt(async () => {
    await database.drop();
  });
  await database.recreate();
  const rows: string[][] = [];
  try {
    await withServer(comandoServer({ name: 'qr-sheet', databaseUrl: database.url, redisKeyPrefix: REDIS_KEY_PREFIX, logLevel: 'warn' }), async (server) => {
      const token = await registerFirstAdmin(server.url);
      const campaign = await callJson<{ id: string }>(`${server.url}/api/poster-qr/campaigns`, {
        token,
        expect: 201,
        body: { name: 'Afiches impresión', status: 'active', landing: { consentText: CONSENT_TEXT, privacyPolicyUrl: 'https://ejemplo.co/privacidad' } },
      });
      const generation: number[] = [];
      let generatedBytes = 0;
      let firstCode = '';
      for (let batch = 0; batch < BATCHES; batch++) {
        const started = performance.now();
        const response = await fetch(`${server.url}/api/poster-qr/campaigns/${campaign.id}/generate-codes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-encoding': 'identity' },
          body: JSON.stringify({ count: BATCH_SIZE }),
        });
        const text = await response.text();
        generation.push(performance.now() - started);
        if (response.status !== 201) throw new Error(`generate-codes answered ${response.status}: ${text.slice(0, 300)}`);
        generatedBytes = Buffer.byteLength(text);
        firstCode ||= (JSON.parse(text) as { codes: { code: string }[] }).codes[0]!.code;
      }
      rows.push([
        `POST generate-codes, ${BATCH_SIZE} codes (×${BATCHES})`,
        `median ${fmtMs(median(generation))} (min ${fmtMs(Math.min(...generation))}, max ${fmtMs(Math.max(...generation))})`,
        fmtKb(generatedBytes),
      ]);

      const sheetUrl = `${server.url}/api/poster-qr/campaigns/${campaign.id}/sheet`;
      for (const round of ['first time', 'second time']) {
        const pages: { ms: number; bytes: number; text: string }[] = [];
        for (let page = 1; ; page++) {
          const answer = await timedGet(`${sheetUrl}?page=${page}`, token);
          if (answer.status !== 200) throw new Error(`sheet page ${page} answered ${answer.status}`);
          pages.push(answer);
          if (!answer.text.includes('rel="next"')) break;
        }
        const total = pages.reduce((sum, page) => sum + page.ms, 0);
        rows.push([
          `GET sheet?page=1…${pages.length}, every page (${round})`,
          `${fmtMs(total)} in all; a page median ${fmtMs(median(pages.map((page) => page.ms)))}, max ${fmtMs(Math.max(...pages.map((page) => page.ms)))}`,
          `${fmtKb(median(pages.map((page) => page.bytes)))} a page (gzip ${gzipKb(pages[0]!.text)}); ${pages.reduce((sum, page) => sum + (page.text.match(/<figure>/g) ?? []).length, 0)} codes`,
        ]);
      }
      const svg = await timedGet(`${server.url}/api/poster-qr/codes/${firstCode}.svg`, token);
      rows.push(['GET one code .svg', fmtMs(svg.ms), `${svg.bytes} B`]);
    });
  } finally {
    await database.drop();
    await deleteRedisKeys(benchRedisUrl, `${REDIS_KEY_PREFIX}:`);
  }
  publish({
    id: 'qr-sheet',
    title: 'Poster codes: minting and the print sheet',
    command: 'npm run bench:qr-sheet',
    blocks: [
      `The built server in its production configuration on a throw-away database; one campaign, ${BATCHES} × \`POST generate-codes {"count":${BATCH_SIZE}}\` (${(BATCHES * BATCH_SIZE).toLocaleString('en-US')}
codes), then the whole sheet twice and one code's SVG. Times are to the last byte, one request at a time,
\`Accept-Encoding: identity\`; gzip sizes are of the same bytes compressed locally (the app gzips HTML above 2 KB).
Images are rendered on first request and kept per process; the sheet is paged by 240 codes. No goal: the
figures show what the paging and the image cache buy.`,
      { header: ['Request', 'Time', 'Size'], rows },
    ],
  });
});
