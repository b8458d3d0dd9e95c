// Starts the built server for the browser tests on a fresh data folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const main = join(root, 'apps/server/dist/main.js');
if (!existsSync(main)) {
  console.error('The server is not built: run `npm run build` first.');
  process.exit(1);
}
const dataDir = mkdtempSync(join(tmpdir(), 'telerace-e2e-'));
const server = spawn(process.execPath, [main], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    // The address the browsers use (playwright.config.ts's baseURL): the sockets accept
    // PUBLIC_URL's origin only.
    PUBLIC_URL: `http://127.0.0.1:${process.env.PORT}`,
  },
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => {
  // The folder is this run's alone (its database, its car agents' files: ~40 MB), and every run
  // makes a new one: left behind, they filled the disk of a machine that runs the suite often.
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
