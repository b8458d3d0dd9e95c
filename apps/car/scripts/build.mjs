/** `npm run build -w apps/car`: the agent bundled into dist/main.js (bundle.mjs). */
import { fileURLToPath } from 'node:url';
import { bundleAgent } from './bundle.mjs';

await bundleAgent(fileURLToPath(new URL('../dist/main.js', import.meta.url)));
