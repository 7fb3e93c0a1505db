// @ts-check
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const web = (path) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The two election-day screens, built into dist/web for Koa to serve (src/kernel/http/static-apps.ts):
 * hashed files under /assets/ (cached for a year), each page's index.html (never cached), and the
 * brigade app's service worker at a fixed name so that its scope is /brigada/.
 */
export default defineConfig({
  root: web('.'),
  base: '/',
  publicDir: web('public'),
  logLevel: 'warn',
  build: {
    outDir: web('../dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    // The preload polyfill is for browsers without <link rel="modulepreload">; ours all have it.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        warRoom: web('war-room/index.html'),
        brigada: web('brigada/index.html'),
        sw: web('brigada/sw.ts'),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'brigada/sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
});
