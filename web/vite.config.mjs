// @ts-check
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const web = (path) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The two election-day screens, built into dist/web for Koa to serve (src/kernel/http/static-apps.ts):
 * hashed files under /assets/ (cached for a year), each page's index.html (never cached), and the
 * brigade app's service worker at a fixed name so that its scope is /brigada/.
 *
 * Two builds (`--mode war-room`, then `--mode brigada`): built together, the apps shared a chunk,
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
    build: {
      outDir: web('../dist/web'),
      // The first build empties the folder; the second adds to it.
      emptyOutDir: !brigada,
      target: 'es2022',
      // The preload polyfill is for browsers without <link rel="modulepreload">; ours all have it.
      modulePreload: { polyfill: false },
      rollupOptions: {
        input: brigada ? { brigada: web('brigada/index.html'), sw: web('brigada/sw.ts') } : { warRoom: web('war-room/index.html') },
        output: {
          entryFileNames: (chunk) => (chunk.name === 'sw' ? 'brigada/sw.js' : 'assets/[name]-[hash].js'),
        },
      },
    },
  };
});
