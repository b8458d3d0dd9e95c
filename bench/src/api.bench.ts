/**
 * `npm run bench -- api`: throughput and latency of a plain API call (`GET /api/health`) through
 * the whole server stack (rate limiter, security headers, logging, error handling), next to a
 * bare `node:http` server answering the same JSON in the same run.
 */
import autocannon from 'autocannon';
import { startScript, startTelerace } from './lib/processes.js';
import { printTable, round, writeResult } from './lib/report.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

const BASELINE = `
import { createServer } from 'node:http';
const body = JSON.stringify({ status: 'ok', db: 'pglite', version: '0.1.0' });
createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

async function load(url: string) {
  const result = await autocannon({
    url: `${url}/api/health`,
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

export async function apiBench(): Promise<void> {
  // The rate limiter would (correctly) stop one client sending this much; lift it for the bench.
  const telerace = await startTelerace({ API_RATE_LIMIT_PER_MINUTE: '100000000' });
  const baseline = await startScript(BASELINE, '/api/health');
  try {
    const base = await load(baseline.url);
    const ours = await load(telerace.url);
    const result = {
      rps: round(ours.rps),
      p50_ms: ours.p50,
      p99_ms: ours.p99,
      errors: ours.errors,
      baseline_rps: round(base.rps),
      baseline_p50_ms: base.p50,
      baseline_p99_ms: base.p99,
      rps_ratio: round(base.rps / ours.rps),
    };
    printTable(`GET /api/health, ${CONNECTIONS} connections, ${DURATION_S} s each`, [
      {
        server: 'bare node:http',
        'req/s': round(base.rps),
        'p50 ms': base.p50,
        'p99 ms': base.p99,
        errors: base.errors,
      },
      {
        server: 'telerace',
        'req/s': round(ours.rps),
        'p50 ms': ours.p50,
        'p99 ms': ours.p99,
        errors: ours.errors,
      },
    ]);
    console.info(`baseline/telerace throughput ratio: ${result.rps_ratio}`);
    console.info(`written: ${writeResult('api', result)}`);
  } finally {
    await Promise.all([telerace.stop(), baseline.stop()]);
  }
}
