// `node scripts/install-node.mjs` (as root): installs the pinned Node.js 24 and npm from the npm
// registry into /usr/local/lib/nodejs-24, linked into /usr/local/bin, when the running Node is
// older than the root package's engines.node (scripts/lib/node-runtime.mjs). `--check`: installs
// nothing, fails unless the running Node is recent enough (CI, after the install).
import { INSTALL_COMMAND, installNode, isAtLeast, requiredNode } from './lib/node-runtime.mjs';

const minimum = requiredNode();
const recent = isAtLeast(process.versions.node, minimum);
if (process.argv.includes('--check')) {
  if (!recent) {
    console.error(`[setup] node on PATH is ${process.versions.node}; Node.js ${minimum} or newer is needed`);
    process.exit(1);
  }
  console.info(`[setup] Node.js ${process.versions.node}`);
} else if (recent) {
  console.info(
    `[setup] Node.js ${process.versions.node} is recent enough (${minimum} or newer): nothing to install`,
  );
} else if (process.getuid?.() !== 0) {
  console.error(`[setup] installing Node.js needs root; run as root:  ${INSTALL_COMMAND}`);
  process.exit(1);
} else {
  installNode();
}
