// `node scripts/ensure-system.mjs run|test`: installs the Debian packages that use needs.
import { ensureSystemPackages } from './lib/system.mjs';

const use = process.argv[2] ?? 'test';
ensureSystemPackages(use);
