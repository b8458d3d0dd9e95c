/**
 * `npm run bench -- static`: what a download of the web app costs the server (issue 40). Needs
 * `npm run build` (builds nothing). The largest script of the build (the React chunk) and two pages
 * (`/` and `/leaderboards`), each fetched by autocannon in its own process with `Accept-Encoding:
 * br` as browsers send it, STATIC_CONNECTIONS (10) connections for STATIC_SECONDS (10 s), from:
 * - **precompressed**: the built server on the build as it is, with the brotli and gzip copies
 *   apps/web/src/precompress.ts writes, sent as they are; its pages are drawn by the server
 *   (issue 45: once a second per page, every other visitor gets the same compressed bytes);
 * - **on the fly** (the behaviour before, same run): the same server on a copy of the build without
 *   the copies, so @fastify/compress compresses each download (brotli, quality 4), and without the
 *   page renderer beside it: its pages are the plain index.html;
 * - **bare**: a bare Fastify in its own process answering the build's brotli bytes from memory with
 *   the same headers: the floor of an HTTP answer of that size.
 * Reported per target: downloads a second, latency p50/p99, the server's CPU time per download
 * (from /proc, over the whole load) and the bytes sent per download. Results: bench/results/static.json.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HttpMeasure, startHttpLoadProcess } from './lib/http-load.js';
import { cpuMs } from './lib/proc-stats.js';
import { ROOT, type Running, startScript, startTelerace } from './lib/processes.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';

const SECONDS = Number(process.env.STATIC_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.STATIC_CONNECTIONS ?? 10);
const WEB_DIST = join(ROOT, 'apps/web/dist');
const HEADERS = { 'accept-encoding': 'gzip, deflate, br, zstd' };

const BARE_STATIC = `
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
const app = Fastify({ logger: false });
for (const file of JSON.parse(process.env.BARE_FILES)) {
  const body = readFileSync(file.path);
  app.get(file.url, (_request, reply) =>
    reply.type(file.contentType).header('content-encoding', 'br').header('vary', 'accept-encoding').send(body),
  );
}
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

/** The build's largest script: the React chunk. */
function largestScript(): string {
  const assets = join(WEB_DIST, 'assets');
  const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
  const sizes = scripts.map((name) => ({ name, size: readFileSync(join(assets, name)).length }));
  const largest = sizes.sort((a, b) => b.size - a.size)[0];
  if (!largest) throw new Error('no script in apps/web/dist/assets: run `npm run build` first');
  return `/assets/${largest.name}`;
}

/** A copy of the build without its compressed copies: the server compresses every download. */
function buildWithoutCopies(): string {
  const dir = mkdtempSync(join(tmpdir(), 'telerace-static-bench-'));
  cpSync(WEB_DIST, dir, { recursive: true, filter: (source) => !/\.(br|gz)$/.test(source) });
  return dir;
}

interface Measured {
  target: string;
  path: string;
  load: HttpMeasure;
  /** Server CPU per download (ms). */
  cpu_ms_per_download: number;
  bytes_per_download: number;
  encoding: string;
}

/** One download as sent (fetch would decode it): its status, encoding and size in bytes. */
function download(url: string): Promise<{ status: number; encoding: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: HEADERS }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: String(res.headers['content-encoding'] ?? 'identity'),
          bytes,
        }),
      );
    }).on('error', reject);
  });
}

async function measure(target: string, server: Running, path: string): Promise<Measured> {
  const url = `${server.url}${path}`;
  const probe = await download(url);
  if (probe.status !== 200) throw new Error(`${target} ${path}: HTTP ${probe.status}`);
  // Warm-up (JIT, file cache), untimed.
  await startHttpLoadProcess({ url, headers: HEADERS, connections: CONNECTIONS, seconds: 2 }).done;
  const pid = server.child.pid ?? 0;
  const cpuBefore = cpuMs(pid);
  const load = await startHttpLoadProcess({
    url,
    headers: HEADERS,
    connections: CONNECTIONS,
    seconds: SECONDS,
  }).done;
  const cpu = cpuMs(pid) - cpuBefore;
  const downloads = Math.max(1, load.rps * SECONDS);
  return {
    target,
    path,
    load,
    cpu_ms_per_download: round(cpu / downloads, 3),
    bytes_per_download: probe.bytes,
    encoding: probe.encoding,
  };
}

export async function staticBench(): Promise<void> {
  const script = largestScript();
  const paths = [script, '/', '/leaderboards'];
  const withoutCopies = buildWithoutCopies();
  const servers: { target: string; server: Running }[] = [];
  try {
    servers.push({ target: 'precompressed', server: await startTelerace({ VIDEO: 'off' }) });
    servers.push({
      target: 'on the fly (before)',
      server: await startTelerace({ VIDEO: 'off', WEB_DIST_DIR: withoutCopies }),
    });
    servers.push({
      target: 'bare (brotli bytes from memory)',
      server: await startScript(BARE_STATIC, script, {
        BARE_FILES: JSON.stringify([
          {
            url: script,
            path: join(WEB_DIST, `${script}.br`),
            contentType: 'text/javascript; charset=utf-8',
          },
          { url: '/', path: join(WEB_DIST, 'index.html.br'), contentType: 'text/html; charset=utf-8' },
          {
            url: '/leaderboards',
            path: join(WEB_DIST, 'index.html.br'),
            contentType: 'text/html; charset=utf-8',
          },
        ]),
      }),
    });
    const results: Measured[] = [];
    for (const path of paths)
      for (const { target, server } of servers) results.push(await measure(target, server, path));
    const rows: Row[] = results.map((r) => ({
      path:
        r.path === script
          ? `${script} (${Math.round(readFileSync(join(WEB_DIST, script)).length / 1000)} kB)`
          : r.path,
      target: r.target,
      'downloads/s': round(r.load.rps, 0),
      'p50 ms': r.load.p50,
      'p99 ms': r.load.p99,
      'server CPU ms/download': r.cpu_ms_per_download,
      'bytes sent': `${r.bytes_per_download} (${r.encoding})`,
      errors: r.load.errors,
    }));
    printTable(
      `Web app downloads, Accept-Encoding: br, ${CONNECTIONS} connections × ${SECONDS} s (npm run bench -- static)`,
      rows,
    );
    console.info(
      `results: ${writeResult('static', { seconds: SECONDS, connections: CONNECTIONS, results })}`,
    );
  } finally {
    for (const { server } of servers) await server.stop();
    rmSync(withoutCopies, { recursive: true, force: true });
  }
}
