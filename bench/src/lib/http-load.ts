/** HTTP load with autocannon: measured in the bench's own process, or run as a separate process. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';

export interface HttpLoad {
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}

export interface HttpMeasure {
  rps: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and answers outside 2xx. */
  errors: number;
}

/** Runs the load from this process and returns what the client saw. */
export async function measureHttp(load: HttpLoad): Promise<HttpMeasure> {
  const result = await autocannon({
    url: load.url,
    headers: load.headers,
    connections: load.connections,
    duration: load.seconds,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

const AUTOCANNON_CLI = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/**
 * Starts the load in a child process (the autocannon CLI), so its client work never runs on the
 * event loop of a bench that is timing something else. Resolves when the load is over.
 */
export function startHttpLoadProcess(load: HttpLoad): { done: Promise<HttpMeasure> } {
  const args = ['-j', '-n', '-c', String(load.connections), '-d', String(load.seconds)];
  for (const [name, value] of Object.entries(load.headers)) args.push('-H', `${name}=${value}`);
  const child = spawn(process.execPath, [AUTOCANNON_CLI, ...args, load.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const done = new Promise<HttpMeasure>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`autocannon exited with ${code}`));
        return;
      }
      const result = JSON.parse(out) as {
        requests: { average: number };
        latency: { p50: number; p99: number };
        errors: number;
        timeouts: number;
        non2xx: number;
      };
      resolve({
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.timeouts + result.non2xx,
      });
    });
  });
  return { done };
}
