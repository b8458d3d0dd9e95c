/**
 * `npm run lint` (lint:wiring): the modules' declarations hold together — every service a module
 * needs or uses is provided by one module, none twice, and no cycle of needs — as buildApp checks
 * at start-up (module.ts `moduleOrder`), here before anything runs. Prints the order they get.
 */
import { moduleOrder } from '../src/module.js';
import { MODULES } from '../src/modules/index.js';

try {
  const order = moduleOrder(MODULES);
  process.stdout.write(`modules: ${order.map((module) => module.name).join(' → ')}\n`);
} catch (error) {
  process.stderr.write(`check-modules: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
