// Starts every process the browser tests talk to, in stages, each stage's processes at once, and
// says it is ready (GET /ready on E2E_READY_PORT) only when every one of them answers its URL.
// Playwright starts its webServer entries one after another (about 19 s for six); here the stand-ins
// start together, then the three servers together. E2E_PROCESSES (set by playwright.config.ts):
// [[{name, command, env, url}, …], …]. Stopping this process stops them all.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

const stages = JSON.parse(process.env.E2E_PROCESSES ?? '[]');
const readyPort = Number(process.env.E2E_READY_PORT);
const READY_WITHIN_MS = 90_000;
const children = [];
let stopping = false;

function stopAll(code) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3_000).unref();
  Promise.all(
    children.map((child) => (child.exitCode === null ? new Promise((r) => child.on('exit', r)) : null)),
  ).then(() => process.exit(code));
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopAll(0));

function start({ name, command, env }) {
  const child = spawn(command, { shell: true, stdio: 'inherit', env: { ...process.env, ...env } });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`[start-all] ${name} exited (${signal ?? code}) before the tests ended`);
    stopAll(1);
  });
  children.push(child);
}

async function answers(url) {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within ${READY_WITHIN_MS / 1000} s`);
}

try {
  for (const stage of stages) {
    for (const entry of stage) start(entry);
    await Promise.all(stage.map((entry) => answers(entry.url)));
  }
} catch (error) {
  console.error(`[start-all] ${error.message}`);
  stopAll(1);
}
if (!stopping) {
  createServer((request, response) => {
    response.writeHead(request.url === '/ready' ? 200 : 404).end();
  }).listen(readyPort, '127.0.0.1');
}
