/**
 * The shipped nginx — deploy/nginx/nginx.conf with deploy/nginx/telerace.conf as its site — run in
 * front of a server, as installed, with TLS. Changed for the run only, each by a rule that fails
 * when the file no longer has the line it expects (so the check never runs something else than
 * what is shipped): pid, logs and temporary files in a throw-away prefix (`nginx -p <dir> -c <conf>`,
 * in the foreground), the machine's own conf.d, sites and modules left out, the listening ports
 * free loopback ones instead of 80 and 443, a self-signed certificate (openssl) instead of
 * Let's Encrypt's, and one upstream server line, the tested instance's, per upstream (the site
 * file's own rule without REDIS_URL). `stock` runs Debian's /etc/nginx/nginx.conf instead of
 * deploy/nginx/nginx.conf, to see what the shipped one changes.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNginx } from './nginx-proxy.js';
import { freePort, ROOT, waitForPort } from './processes.js';

export const SHIPPED_MAIN_CONF = join(ROOT, 'deploy/nginx/nginx.conf');
export const STOCK_MAIN_CONF = '/etc/nginx/nginx.conf';
const SITE_CONF = join(ROOT, 'deploy/nginx/telerace.conf');
const LETS_ENCRYPT_DIR = '/etc/letsencrypt/live/telerace.example.com/';

/** Replaces every line matching `pattern` (at least one must) by `replacement` (the match's line). */
function replaceLines(conf: string, what: string, pattern: RegExp, replacement: (line: string) => string) {
  let found = false;
  const lines = conf.split('\n').flatMap((line) => {
    if (!pattern.test(line)) return [line];
    found = true;
    const replaced = replacement(line);
    return replaced === '' ? [] : [replaced];
  });
  if (!found) throw new Error(`${what}: no line matches ${pattern}`);
  return lines.join('\n');
}

/** The main file with its paths in `prefix`, including `site` in place of the machine's sites. */
export function mainConfForRun(conf: string, prefix: string, site: string, asRoot: boolean): string {
  const file = 'nginx.conf';
  let out = replaceLines(conf, file, /^\s*pid\s/, () => `pid ${join(prefix, 'nginx.pid')};`);
  out = replaceLines(out, file, /^\s*error_log\s/, () => `error_log ${join(prefix, 'error.log')};`);
  out = replaceLines(out, file, /^\s*access_log\s/, () => `access_log ${join(prefix, 'access.log')};`);
  out = replaceLines(out, file, /^\s*include \/etc\/nginx\/(modules-enabled|conf\.d)\//, () => '');
  out = replaceLines(out, file, /^\s*include \/etc\/nginx\/sites-enabled\//, () =>
    [
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `    ${kind}_temp_path ${join(prefix, kind)};`,
      ),
      `    include ${site};`,
    ].join('\n'),
  );
  // Workers drop to www-data only when nginx starts as root; otherwise the line is an error.
  if (!asRoot) out = replaceLines(out, file, /^\s*user\s/, () => '');
  return out;
}

/** The site with loopback ports, the run's certificate and `upstreamPort` as the only instance. */
export function siteConfForRun(
  conf: string,
  ports: { http: number; https: number; upstream: number },
  certDir: string,
): string {
  const file = 'telerace.conf';
  let out = replaceLines(conf, file, /^\s*listen \[::\]:/, () => '');
  out = replaceLines(out, file, /^\s*listen 80;/, (l) => l.replace('80', `127.0.0.1:${ports.http}`));
  out = replaceLines(out, file, /^\s*listen 443 /, (l) => l.replace('443', `127.0.0.1:${ports.https}`));
  out = replaceLines(out, file, /^\s*ssl_certificate(_key)? /, (l) =>
    l.replace(LETS_ENCRYPT_DIR, `${certDir}/`),
  );
  // The first server line of each upstream becomes the instance; the others go.
  out = replaceLines(out, file, /^\s*server 127\.0\.0\.1:\d+/, (l) =>
    /127\.0\.0\.1:8081\b/.test(l) ? l.replace(/127\.0\.0\.1:8081\b/, `127.0.0.1:${ports.upstream}`) : '',
  );
  return out;
}

export interface DeployedNginx {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The self-signed certificate clients must trust (PEM). */
  ca: string;
  /** The worker processes' ids (nginx's master forks them once it has read its configuration). */
  workerPids(): number[];
  /** The error log so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts the shipped (or Debian's stock) nginx on `httpsPort` in front of the instance on
 * `upstreamPort`; resolves once it listens.
 */
export async function startDeployedNginx(options: {
  httpsPort: number;
  upstreamPort: number;
  stock: boolean;
}): Promise<DeployedNginx> {
  const { httpsPort, upstreamPort, stock } = options;
  const nginx = findNginx();
  if (!nginx) throw new Error('nginx is not installed (`node scripts/ensure-system.mjs nginx` installs it)');
  const main = stock ? STOCK_MAIN_CONF : SHIPPED_MAIN_CONF;
  if (!existsSync(main)) throw new Error(`${main} does not exist`);
  const prefix = mkdtempSync(join(tmpdir(), 'telerace-nginx-check-'));
  // An ECDSA P-256 certificate for 127.0.0.1, as certbot issues by default (ECDSA): cheap handshakes.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(prefix, 'privkey.pem'),
      '-out',
      join(prefix, 'fullchain.pem'),
    ],
    { stdio: 'ignore' },
  );
  const ports = { http: await freePort(), https: httpsPort, upstream: upstreamPort };
  const site = join(prefix, 'telerace.conf');
  writeFileSync(site, siteConfForRun(readFileSync(SITE_CONF, 'utf8'), ports, prefix));
  const conf = join(prefix, 'nginx.conf');
  const asRoot = process.getuid?.() === 0;
  writeFileSync(conf, mainConfForRun(readFileSync(main, 'utf8'), prefix, site, asRoot));
  const errorLogFile = join(prefix, 'error.log');
  // -e: the error log before the configuration is read (else nginx opens /var/log/nginx's).
  const args = ['-p', prefix, '-e', errorLogFile, '-c', conf];
  execFileSync(nginx, [...args, '-t', '-q'], { stdio: 'inherit' });
  const child: ChildProcess = spawn(nginx, [...args, '-g', 'daemon off;'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const errorLog = () => (existsSync(errorLogFile) ? readFileSync(errorLogFile, 'utf8') : '');
  const failed = exited.then((code) => {
    throw new Error(`nginx exited (${code}) before listening: ${errorLog().trim()}`);
  });
  await Promise.race([waitForPort(ports.https), failed]);
  failed.catch(() => undefined);
  return {
    url: `https://127.0.0.1:${ports.https}`,
    ca: readFileSync(join(prefix, 'fullchain.pem'), 'utf8'),
    workerPids: () => {
      const pid = child.pid;
      if (pid === undefined) return [];
      const tasks = readdirSync(`/proc/${pid}/task`);
      return tasks
        .flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/))
        .filter(Boolean)
        .map(Number);
    },
    errorLog,
    async stop() {
      // SIGTERM, the fast stop: the graceful one (SIGQUIT) waits for every open WebSocket to end.
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
