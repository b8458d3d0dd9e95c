// `npm run dev`: the server (reloads on change) and the Vite dev server (hot reload) together.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeRuntime } from './lib/node-runtime.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// On an older Node this goes on under Node 24 (installed by the quick start or as root).
await ensureNodeRuntime();
/** Where Vite serves the app (its default port; --strictPort: fail rather than move elsewhere). */
const VITE_ORIGIN = 'http://localhost:5173';
const children = [
  // The browser's pages come from Vite, which proxies the sockets: their Origin is Vite's, and
  // the server accepts PUBLIC_URL's origin only (reset links in mails point there too).
  spawn('npm', ['run', 'dev', '-w', 'apps/server'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PUBLIC_URL: process.env.PUBLIC_URL ?? VITE_ORIGIN },
  }),
  spawn('npm', ['run', 'dev', '-w', 'apps/web', '--', '--strictPort'], { cwd: root, stdio: 'inherit' }),
];
const stop = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children)
  child.on('exit', (code) => {
    stop();
    process.exitCode = code ?? 0;
  });
