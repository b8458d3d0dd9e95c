/**
 * The car agent as one file: everything it imports inlined — @telerace/protocol from its
 * TypeScript source, zod, ws — so it runs where there is no node_modules at all (a car's Pi,
 * docs/car.md). `npm run build` writes it to dist/main.js (build.mjs); pack.mjs packs the same
 * build into the car's npm package. Beside it goes the one file that is not JavaScript: the camera
 * pipeline's runner, gst-runner.py (src/video/encoder-control.ts finds it next to the module).
 */
import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const CAR_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Python, run by the agent from the bundle's folder (`new URL('./gst-runner.py', import.meta.url)`). */
const RUNNER = join(CAR_DIR, 'src', 'video', 'gst-runner.py');

/**
 * Writes the bundle to `outfile`, and gst-runner.py beside it; resolves with the npm packages
 * inlined in it (their folders under node_modules), whose licences travel with the bundle.
 * @param {string} outfile
 * @returns {Promise<string[]>}
 */
export async function bundleAgent(outfile) {
  const result = await build({
    absWorkingDir: CAR_DIR,
    entryPoints: ['src/main.ts'],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    // The workspace package's own source, as the tests and tsx run it: no protocol build first.
    conditions: ['source'],
    // ws's optional native speed-ups: used when installed beside the agent, else plain JavaScript.
    external: ['bufferutil', 'utf-8-validate'],
    // ws is CommonJS, and its require() of Node's modules needs a require in an ES module.
    banner: {
      js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);",
    },
    outfile,
    metafile: true,
    logLevel: 'warning',
  });
  copyFileSync(RUNNER, join(dirname(outfile), 'gst-runner.py'));
  const packages = new Set();
  for (const input of Object.keys(result.metafile.inputs)) {
    // `../../node_modules/zod/v4/core/core.js` → the folder `../../node_modules/zod`.
    const found = /^.*?node_modules\/(?:@[^/]+\/)?[^/]+/.exec(input);
    if (found) packages.add(join(CAR_DIR, found[0]));
  }
  return [...packages].sort();
}
