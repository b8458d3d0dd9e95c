/** Build and dev server of the web app. The dev server forwards the API and sockets to the local server. */
import { resolve } from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type UserConfig } from 'vite';
import { firstLoadBudget } from './src/first-load-budget.js';
import { splitEnglishTexts } from './src/i18n/split-texts.js';
import { precompress } from './src/precompress.js';
import { routePreloads } from './src/route-preloads.js';

const SERVER = 'http://127.0.0.1:8080';

/** janus.js's UMD wrapper probes `module`, absent in the browser, where it takes its window branch. */
const quietJanus: NonNullable<NonNullable<UserConfig['build']>['rolldownOptions']>['onLog'] = (
  level,
  log,
  handler,
) => {
  if (log.code === 'COMMONJS_VARIABLE_IN_ESM' && log.id?.includes('janus-gateway')) return;
  handler(level, log);
};

/** `source` makes workspace packages (@telerace/protocol) resolve to their TypeScript sources. */
const SOURCE_FIRST = ['source', ...defaultClientConditions];

/**
 * The server's renderer of the public pages (`vite build --ssr`, src/entry-server.tsx; issue 45):
 * one self-contained module in dist-ssr/ — every library bundled, so the server needs nothing of the
 * web app's node_modules at run time — loaded by apps/server/src/http/page-render.ts.
 */
const serverRenderer = defineConfig({
  root: import.meta.dirname,
  plugins: [react(), splitEnglishTexts()],
  publicDir: false,
  // React's production build, whatever the server's own NODE_ENV: faster, and no stack in the HTML.
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  resolve: { conditions: SOURCE_FIRST },
  ssr: { noExternal: true, resolve: { conditions: SOURCE_FIRST, externalConditions: ['node'] } },
  build: {
    outDir: resolve(import.meta.dirname, 'dist-ssr'),
    emptyOutDir: true,
    ssr: 'src/entry-server.tsx',
    target: 'node24',
    rolldownOptions: {
      onLog: quietJanus,
      output: { codeSplitting: false, entryFileNames: 'entry-server.js' },
    },
  },
});

const browserApp = defineConfig({
  root: import.meta.dirname,
  plugins: [react(), tailwindcss(), splitEnglishTexts(), routePreloads(), firstLoadBudget(), precompress()],
  resolve: { conditions: SOURCE_FIRST },
  build: {
    outDir: resolve(import.meta.dirname, 'dist'),
    assetsDir: 'assets',
    emptyOutDir: true,
    rolldownOptions: {
      onLog: quietJanus,
      // The protocol's modules only declare constants and schemas: one the first page does not use
      // (a zod schema is a call, kept unless its module may be dropped) stays out of its download.
      // Every other module keeps the default (its package's `sideEffects`, none for JSON).
      treeshake: { moduleSideEffects: [{ test: /packages[\\/]protocol[\\/]src[\\/]/, sideEffects: false }] },
      output: {
        // Libraries change less often than the app: separate chunks stay cached across releases.
        codeSplitting: {
          groups: [
            // janus.js is fetched only by the control page's video player (dynamic import).
            { name: 'janus', test: /node_modules[\\/](janus-gateway|webrtc-adapter|sdp)[\\/]/, priority: 3 },
            {
              name: 'react',
              test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/,
              priority: 2,
            },
            // zod is fetched with the first schema a page parses with (src/lib/schemas.ts), not before.
            { name: 'zod', test: /node_modules[\\/]zod[\\/]/, priority: 2 },
            { name: 'vendor', test: /node_modules[\\/]/, priority: 1 },
            // The French texts in one file, fetched when French is shown (src/i18n).
            { name: 'texts-fr', test: /src[\\/]i18n[\\/]((pages|documents)[\\/])?fr\.json$/, priority: 1 },
            // The English texts of the long documents, fetched with the pages that show them, and those
            // of the other pages fetched when shown, fetched with the first of them (src/i18n).
            { name: 'texts-documents-en', test: /src[\\/]i18n[\\/]documents[\\/]en\.json$/, priority: 1 },
            { name: 'texts-later-en', test: /src[\\/]i18n[\\/]en\.json\?later$/, priority: 1 },
            // The app's own code for the first page in one file, not one small chunk per module that a
            // lazily loaded page also uses. Not its dependencies as well: that would pull the French
            // texts (statically imported for tests and the dev server) back into it.
            {
              name: 'app',
              test: (id) =>
                !/[\\/]fr\.json$|[\\/]documents[\\/]en\.json$|[\\/]en\.json\?later$/.test(id) &&
                /apps[\\/]web[\\/]src[\\/]|packages[\\/]protocol[\\/]|preload-helper/.test(id),
              tags: ['$initial'],
              includeDependenciesRecursively: false,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: SERVER, ws: true },
      '/rcsocket': { target: SERVER, ws: true },
      '/janus': { target: SERVER, ws: true },
    },
  },
});

export default defineConfig((env) => (env.isSsrBuild ? serverRenderer : browserApp));
