/**
 * The example nginx of deploy/nginx/telerace.conf in front of bench instances: the same upstreams
 * (round-robin over the instances, keep-alive to them, `/rcsocket` hashed on `car`) and the same
 * locations and proxy settings, derived from that file at each run, so the bench measures what an
 * operator deploys. Changed for the bench only: plain HTTP on a free loopback port instead of
 * 443 with TLS (no certificate here), no port-80 redirect, the instances' ports in the upstreams,
 * no rate limit on the public reads (every bench client is 127.0.0.1: the limit would measure
 * nginx's refusals), and pid, logs and temp files in a throw-away folder (`nginx -p <dir> -c <conf>`,
 * in the foreground, as whoever runs the bench).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, waitForPort } from './processes.js';

const EXAMPLE_CONF = join(ROOT, 'deploy/nginx/telerace.conf');

/** The nginx binary (PATH, or Debian's /usr/sbin outside root's PATH), or null when none is installed. */
export function findNginx(): string | null {
  for (const candidate of [process.env.BENCH_NGINX ?? 'nginx', '/usr/sbin/nginx']) {
    const probe = spawnSync(candidate, ['-v'], { stdio: 'ignore' });
    if (!probe.error && probe.status === 0) return candidate;
  }
  return null;
}

/** The top-level blocks and lines of an nginx file (comments dropped), split by brace depth. */
function topLevelBlocks(conf: string): string[] {
  const blocks: string[] = [];
  let current = '';
  let depth = 0;
  for (const raw of conf.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    if (line.trim() === '') continue;
    current += `${line}\n`;
    depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
    if (depth === 0) {
      blocks.push(current);
      current = '';
    }
  }
  return blocks;
}

/**
 * The example's http-level content for the bench: upstream servers replaced by `ports` (with the
 * example's own parameters), the port-80 server dropped, the TLS server listening on plain HTTP.
 */
export function benchNginxHttpBlock(example: string, ports: number[], listenPort: number): string {
  return topLevelBlocks(example)
    .filter((block) => !/^\s*listen 80;/m.test(block))
    .map((block) => {
      if (block.startsWith('upstream ')) {
        const serverLine = /^(\s*)server 127\.0\.0\.1:\d+(.*)$/m.exec(block);
        if (!serverLine) throw new Error(`no server line in the example's ${block.split('\n')[0]}`);
        const [, indent, parameters] = serverLine;
        const servers = ports.map((port) => `${indent}server 127.0.0.1:${port}${parameters}\n`).join('');
        // In the first server line's place: `hash` and the like stay before the servers.
        let first = true;
        return block.replace(/^\s*server 127\.0\.0\.1:\d+.*\n/gm, () => {
          const replacement = first ? servers : '';
          first = false;
          return replacement;
        });
      }
      if (block.startsWith('server ')) {
        const plain = block.replace(/^\s*(listen|ssl_\w+|limit_req)\b.*\n/gm, '');
        return plain.replace(/\{\n/, `{\n    listen 127.0.0.1:${listenPort};\n`);
      }
      return block;
    })
    .join('\n');
}

export interface NginxProxy {
  url: string;
  stop(): Promise<void>;
}

/** Starts nginx in front of the instances on `ports`; resolves once it listens. */
export async function startNginx(nginx: string, ports: number[]): Promise<NginxProxy> {
  const prefix = mkdtempSync(join(tmpdir(), 'telerace-nginx-'));
  const listenPort = await freePort();
  const conf = join(prefix, 'nginx.conf');
  const errorLog = join(prefix, 'error.log');
  writeFileSync(
    conf,
    [
      'daemon off;',
      // One worker per core, as Debian's default nginx.conf.
      'worker_processes auto;',
      `pid ${join(prefix, 'nginx.pid')};`,
      `error_log ${errorLog} warn;`,
      'events { worker_connections 4096; }',
      'http {',
      // A log line per request would be the disk's work added to the proxy's.
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `  ${kind}_temp_path ${join(prefix, kind)};`,
      ),
      benchNginxHttpBlock(readFileSync(EXAMPLE_CONF, 'utf8'), ports, listenPort),
      '}',
      '',
    ].join('\n'),
  );
  // -e: the error log before the configuration is read (else nginx opens /var/log/nginx's).
  const child: ChildProcess = spawn(nginx, ['-p', prefix, '-e', errorLog, '-c', conf], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const failed = exited.then((code) => {
    const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '';
    throw new Error(`nginx exited (${code}) before listening: ${log.trim()}`);
  });
  await Promise.race([waitForPort(listenPort), failed]);
  failed.catch(() => undefined);
  return {
    url: `http://127.0.0.1:${listenPort}`,
    async stop() {
      // SIGQUIT: nginx's graceful stop (SIGTERM is its fast one: either does here).
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      // What went wrong between nginx and the instances (refused, reset, timed out) says what an
      // error in the table was: shown before the throw-away folder goes.
      const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8').trim() : '';
      if (log) console.warn(`nginx's error log:\n${log.split('\n').slice(-10).join('\n')}`);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
