// @ts-check
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig } from 'vite';

const web = (path) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Server code that must never reach a browser bundle. The screens import the server's zod schemas
 * and policies (one source of truth for a form's rules and a role's menu); a schema or policy
 * file that imports the ORM, the driver or Node's built-ins breaks the build here, with its name,
 * rather than shipping a megabyte of server code.
 */
const SERVER_ONLY = /^(node:|@mikro-orm\/|kysely$|pg$|pg-|ioredis$|bullmq$|koa|@koa\/|pino$|socket\.io$|@socket\.io\/redis|nodemailer$|mjml$|exceljs$)/;

/** @type {import('vite').Plugin} */
const serverCodeStaysOut = {
  name: 'comando:server-code-stays-out',
  enforce: 'pre',
  resolveId(source, importer) {
    if (SERVER_ONLY.test(source)) this.error(`${importer ?? '?'} imports ${source}, which is server code: import only zod schemas, policies and types into the screens.`);
    return null;
  },
};

/**
 * Every hashed script and stylesheet also written brotli- (quality 11) and gzip-compressed (level
 * 9) beside itself: Koa sends the smallest form the browser takes without compressing on each
 * request, and at levels too slow to spend per request (the console's first load is a fifth
 * smaller in brotli 11 than in the on-the-fly brotli 4).
 */
/** @type {import('vite').Plugin} */
const precompressAssets = {
  name: 'comando:precompress-assets',
  apply: 'build',
  writeBundle(options, bundle) {
    for (const fileName of Object.keys(bundle)) {
      if (!fileName.startsWith('assets/') || !/\.(js|css)$/.test(fileName)) continue;
      const path = join(options.dir ?? '', fileName);
      const body = readFileSync(path);
      if (body.length < 1024) continue;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
      writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
    }
  },
};

/**
 * How the console's code is cut into files. The framework every screen needs is two vendor chunks
 * whose contents do not depend on the module screens: React, React DOM, React Router and TanStack
 * Query; and the Mantine the shell itself renders (`$initial`: reached by static imports from the
 * entry). zod and Mantine's form library are a third, fetched with the first form (the sign-in
 * page has one). Everything else, each module's screens and the Mantine components only they use,
 * is left to the automatic splitting of lazy imports, so a new module's code and the components
 * it brings load when it is first opened and never join the first load; without these groups the
 * bundler cut the framework along the module screens' shared pieces, and each new screen added
 * small early chunks to the first load.
 */
/** @type {import('rolldown').CodeSplittingGroup[]} */
const CONSOLE_CHUNKS = [
  { name: 'vendor-react', test: /node_modules[\\/](react|react-dom|scheduler|react-router|@tanstack[\\/][^\\/]+)[\\/]/, priority: 30 },
  { name: 'vendor-forms', test: /node_modules[\\/](zod|@mantine[\\/]form|klona|fast-deep-equal)[\\/]/, priority: 20 },
  {
    name: 'vendor-mantine',
    test: /node_modules[\\/](@mantine|@floating-ui|react-remove-scroll|react-remove-scroll-bar|react-style-singleton|use-callback-ref|use-sidecar|react-transition-group|clsx|tslib|@babel[\\/]runtime|dom-helpers)[\\/]/,
    tags: ['$initial'],
    priority: 10,
  },
];

/**
 * The staff console (at /) and the two election-day screens, built into dist/web for Koa to serve (src/kernel/http/static-apps.ts):
 * hashed files under /assets/ (cached for a year), each page's index.html (never cached), and the
 * brigade app's service worker at a fixed name so that its scope is /brigada/.
 *
 * Two builds (`--mode war-room` builds the console too, then `--mode brigada`): built together, the apps shared a chunk,
 * and the brigade page, whose script Koa inlines so a phone on a slow network waits for one round
 * trip rather than three, would still have had to fetch it.
 */
export default defineConfig(({ mode }) => {
  const brigada = mode === 'brigada';
  return {
    root: web('.'),
    base: '/',
    publicDir: brigada ? web('public') : false,
    logLevel: 'warn',
    plugins: [serverCodeStaysOut, precompressAssets],
    oxc: { jsx: { runtime: 'automatic' } },
    build: {
      outDir: web('../dist/web'),
      // The first build empties the folder; the second adds to it.
      emptyOutDir: !brigada,
      target: 'es2022',
      sourcemap: process.env.WEB_SOURCEMAP === '1',
      // The preload polyfill is for browsers without <link rel="modulepreload">; ours all have it.
      modulePreload: { polyfill: false },
      rolldownOptions: {
        input: brigada ? { brigada: web('brigada/index.html'), sw: web('brigada/sw.ts') } : { warRoom: web('war-room/index.html'), console: web('console/index.html') },
        output: {
          entryFileNames: (chunk) => (chunk.name === 'sw' ? 'brigada/sw.js' : 'assets/[name]-[hash].js'),
          codeSplitting: brigada ? true : { groups: CONSOLE_CHUNKS },
        },
      },
    },
  };
});
