/**
 * deploy/release.sh on a folder of the test's own: real `git archive` of this repository's HEAD,
 * real `npm run config:check` and `npm run upgrade:mode` in each release, real symlinks, real
 * waits on /api/ready; what it would run on a server is stood in for — `npm ci && npm run build`
 * by a build that links this checkout's node_modules and writes a probe as the server's bundle,
 * systemctl by a script that logs its calls and restarts two fake instances (HTTP servers here
 * that answer /api/ready 503, then 200 once "started", or never when the release that `current`
 * points at is marked broken). No database: once, on pglite.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const CHECKOUT = resolve(import.meta.dirname, '../../../..');
const SCRIPT = join(CHECKOUT, 'deploy/release.sh');
/** How long a fake instance takes to start: long enough that a script that did not wait would be seen. */
const START_MS = 300;

/** A stand-in for one telerace@<port> instance: /api/ready, and what systemctl does to it. */
class FakeInstance {
  server: Server;
  port = 0;
  #ready = true;
  /** Whether this start's first 200 is logged already. */
  #announced = true;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly root: string,
    private readonly events: string[],
  ) {
    this.server = createServer((request, response) => {
      const [, action] = /^\/systemctl\/(\w+)$/.exec(request.url ?? '') ?? [];
      if (action) {
        this.#systemctl(action);
        response.end();
      } else if (request.url === '/api/ready') {
        if (this.#ready && !this.#announced) {
          this.#announced = true;
          this.events.push(`${this.port} ready`);
        }
        response.writeHead(this.#ready ? 200 : 503).end();
      } else response.writeHead(404).end();
    });
  }

  async listen(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** A server starts from what `current` points at then; a broken release never gets ready. */
  #systemctl(action: string): void {
    clearTimeout(this.#timer);
    this.#ready = false;
    this.#announced = false;
    this.events.push(`${this.port} ${action}`);
    if (action === 'stop') return;
    if (existsSync(join(realpathSync(join(this.root, 'current')), 'BROKEN'))) return;
    this.#timer = setTimeout(() => {
      this.#ready = true;
    }, START_MS);
  }

  close(): void {
    clearTimeout(this.#timer);
    this.server.close();
  }
}

/** systemctl: lists the fake instances as running units and hands each start, stop or restart to one. */
const SYSTEMCTL = `#!/usr/bin/env bash
set -e
action=$1
shift
case $action in
list-units) for port in $FAKE_PORTS; do echo "telerace@$port.service loaded active running Telerace server on port $port"; done ;;
start | stop | restart)
  for unit in "$@"; do
    port=\${unit#telerace@}
    curl -fsS -X POST "http://127.0.0.1:\${port%.service}/systemctl/$action"
  done ;;
*) echo "systemctl stand-in: $action" >&2; exit 1 ;;
esac
`;

/**
 * npm ci && npm run build: this checkout's node_modules, a probe as the server's bundle (it says
 * where it runs from), the drive channel's worker, a web chunk named after the release. It first
 * checks that the running release is whole while this one builds.
 */
const BUILD = `set -e
if [ -e "$TELERACE_ROOT/current" ]; then
  test -f "$TELERACE_ROOT/current/apps/server/dist/drive-channel-worker.js"
  test -f "$TELERACE_ROOT/current/node_modules/werift/package.json"
  echo "$(basename "$(readlink "$TELERACE_ROOT/current")") whole while $(basename "$PWD") built" >>"$BUILD_LOG"
fi
[ -z "$FAIL_BUILD" ] || { echo "the build fails" >&2; exit 1; }
ln -s "$CHECKOUT/node_modules" node_modules
ln -s "$CHECKOUT/apps/server/node_modules" apps/server/node_modules
mkdir -p apps/server/dist apps/web/dist/assets
echo 'process.stdout.write(JSON.stringify({ cwd: process.cwd(), url: import.meta.url }) + "\\n"); setInterval(() => {}, 60000);' >apps/server/dist/main.js
echo 'the drive channel worker' >apps/server/dist/drive-channel-worker.js
echo "a chunk of $(basename "$PWD")" >"apps/web/dist/assets/page-$(basename "$PWD").js"
[ -z "$BROKEN" ] || touch BROKEN
if [ -n "$DROP_COLUMN" ]; then
  echo 'ALTER TABLE "cars" DROP COLUMN "lap_counter_id";' >apps/server/drizzle/0099_drop_lap_counter.sql
  node -e 'const fs = require("node:fs"); const f = "apps/server/drizzle/meta/_journal.json"; const j = JSON.parse(fs.readFileSync(f)); j.entries.push({ idx: 99, version: "7", when: Date.now(), tag: "0099_drop_lap_counter", breakpoints: true }); fs.writeFileSync(f, JSON.stringify(j));'
fi
`;

describe('deploy/release.sh', () => {
  let work: string;
  let root: string;
  let buildLog: string;
  const events: string[] = [];
  const instances: FakeInstance[] = [];
  const probes: ChildProcess[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'telerace-release-'));
    root = join(work, 'opt-telerace');
    buildLog = join(work, 'build.log');
    await mkdir(root);
    await mkdir(join(work, 'bin'));
    await writeFile(join(work, 'bin', 'systemctl'), SYSTEMCTL, { mode: 0o755 });
    await writeFile(join(work, 'build.sh'), BUILD);
    await writeFile(
      join(work, 'telerace.env'),
      'JWT_SECRET=0123456789abcdef0123456789abcdef0123456789\nPUBLIC_URL=https://telerace.example.com\nTRUST_PROXY=1\n',
    );
    for (let i = 0; i < 2; i += 1) {
      const instance = new FakeInstance(root, events);
      await instance.listen();
      instances.push(instance);
    }
    // The script goes through the instances in the order of their ports.
    instances.sort((one, other) => one.port - other.port);
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? work,
      TELERACE_ROOT: root,
      TELERACE_REPO: CHECKOUT,
      TELERACE_ENV_FILE: join(work, 'telerace.env'),
      TELERACE_SYSTEMCTL: join(work, 'bin', 'systemctl'),
      TELERACE_BUILD: `bash ${join(work, 'build.sh')}`,
      TELERACE_SETTLE: '0',
      FAKE_PORTS: instances.map((instance) => instance.port).join(' '),
      CHECKOUT,
      BUILD_LOG: buildLog,
    };
  });
  beforeEach(() => {
    events.length = 0;
  });
  afterAll(async () => {
    for (const probe of probes) probe.kill('SIGKILL');
    for (const instance of instances) instance.close();
    await rm(work, { recursive: true, force: true });
  });

  const [a, b] = [() => instances[0]?.port, () => instances[1]?.port];
  /** Runs the script to its end: its exit code and what it printed. */
  const release = (args: string[], extraEnv: Record<string, string> = {}) =>
    new Promise<{ code: number; output: string }>((done) => {
      execFile(SCRIPT, ['--no-fetch', ...args], { env: { ...env, ...extraEnv } }, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
  const linked = async (name: 'current' | 'previous') =>
    (await readlink(join(root, name))).replace(/^releases\//, '');
  const releases = async () => (await readdir(join(root, 'releases'))).sort();
  const hash = async (path: string) =>
    createHash('sha256')
      .update(await readFile(path))
      .digest('hex');

  let first = '';
  let second = '';

  it('the first deploy makes releases/<time>-<commit> and current; the instances stop, then start one first', async () => {
    const { code, output } = await release(['deploy', 'HEAD']);
    expect(code, output).toBe(0);
    first = await linked('current');
    const commit = await new Promise<string>((done) =>
      execFile('git', ['-C', CHECKOUT, 'rev-parse', 'HEAD'], (_error, stdout) => done(stdout.trim())),
    );
    expect(first).toMatch(new RegExp(`^\\d{8}-\\d{6}-${commit.slice(0, 12)}$`));
    expect(readFileSync(join(root, 'releases', first, '.release'), 'utf8')).toContain(`commit=${commit}`);
    expect(output).toContain('is a valid configuration');
    // No release ran before: every instance stops, the first starts alone, then the others.
    expect(events).toEqual([
      `${a()} stop`,
      `${b()} stop`,
      `${a()} start`,
      `${a()} ready`,
      `${b()} start`,
      `${b()} ready`,
    ]);
  });

  it('the next builds beside the running release, switches atomically and restarts one instance at a time', async () => {
    // What the unit starts: `node apps/server/dist/main.js` in /opt/telerace/current.
    const probe = spawn(process.execPath, ['apps/server/dist/main.js'], {
      cwd: join(root, 'current'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    probes.push(probe);
    const [line] = (await once(probe.stdout, 'data')) as [Buffer];
    const started = JSON.parse(line.toString()) as { cwd: string; url: string };
    const firstDir = realpathSync(join(root, 'releases', first));
    expect(started).toEqual({ cwd: firstDir, url: `file://${firstDir}/apps/server/dist/main.js` });
    const before = await hash(join(firstDir, 'apps/server/dist/main.js'));

    // Whoever reads `current` during the deploy finds a release, never nothing.
    const seen = new Set<string>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        seen.add(
          await readlink(join(root, 'current')).catch((error: Error) => `unreadable: ${error.message}`),
        );
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const { code, output } = await release(['deploy', 'HEAD']);
    watching = false;
    await watcher;
    expect(code, output).toBe(0);
    second = await linked('current');
    expect(second).not.toBe(first);
    expect(await linked('previous')).toBe(first);
    expect([...seen].sort()).toEqual([`releases/${first}`, `releases/${second}`]);

    expect(readFileSync(buildLog, 'utf8')).toContain(`${first} whole while ${second} built`);
    expect(await hash(join(firstDir, 'apps/server/dist/main.js'))).toBe(before);
    // The running process stays on its release: a switch changes what the next start runs.
    expect(realpathSync(`/proc/${probe.pid}/cwd`)).toBe(firstDir);
    // Each instance back before the next goes (rolling: the migrations only expanded).
    expect(output).toContain('(rolling restart)');
    expect(events).toEqual([`${a()} restart`, `${a()} ready`, `${b()} restart`, `${b()} ready`]);
    // Pages still open on the previous release load its chunks from the new one.
    expect((await readdir(join(root, 'releases', second, 'apps/web/dist/assets'))).sort()).toEqual([
      `page-${first}.js`,
      `page-${second}.js`,
    ]);
  });

  it('rolls back to the previous release, one instance at a time', async () => {
    const { code, output } = await release(['rollback']);
    expect(code, output).toBe(0);
    expect(await linked('current')).toBe(first);
    expect(await linked('previous')).toBe(second);
    expect(events).toEqual([`${a()} restart`, `${a()} ready`, `${b()} restart`, `${b()} ready`]);
    // And forward again.
    expect((await release(['rollback'])).code).toBe(0);
    expect(await linked('current')).toBe(second);
  });

  it('a failed build switches nothing, restarts nothing and leaves no folder behind', async () => {
    const kept = await releases();
    const { code, output } = await release(['deploy', 'HEAD'], { FAIL_BUILD: '1' });
    expect(code).toBe(1);
    expect(output).toContain('nothing was switched');
    expect(await linked('current')).toBe(second);
    expect(await releases()).toEqual(kept);
    expect(events).toEqual([]);
  });

  it('a release whose instance does not get ready is switched back, and that instance restarted on the previous one', async () => {
    const { code, output } = await release(['deploy', 'HEAD'], { BROKEN: '1', TELERACE_READY_TIMEOUT: '2' });
    expect(code).toBe(1);
    expect(output).toContain(`rolled back to ${second}`);
    expect(await linked('current')).toBe(second);
    expect(await linked('previous')).toBe(first);
    // The other instance never left the previous release.
    expect(events).toEqual([`${a()} restart`, `${a()} restart`, `${a()} ready`]);
  });

  it('a migration that drops a column: every instance stops, one starts first; no rollback past it without --force', async () => {
    const deployed = await release(['deploy', 'HEAD'], { DROP_COLUMN: '1' });
    expect(deployed.code, deployed.output).toBe(0);
    expect(deployed.output).toContain(
      '0099_drop_lap_counter: drops what the previous release may use (column)',
    );
    expect(events).toEqual([
      `${a()} stop`,
      `${b()} stop`,
      `${a()} start`,
      `${a()} ready`,
      `${b()} start`,
      `${b()} ready`,
    ]);
    const dropped = await linked('current');

    events.length = 0;
    const refused = await release(['rollback']);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('restore the dump taken before the upgrade');
    expect(await linked('current')).toBe(dropped);
    expect(events).toEqual([]);

    const forced = await release(['--force', 'rollback']);
    expect(forced.code, forced.output).toBe(0);
    expect(await linked('current')).toBe(second);
    expect(events).toEqual([
      `${a()} stop`,
      `${b()} stop`,
      `${a()} start`,
      `${a()} ready`,
      `${b()} start`,
      `${b()} ready`,
    ]);
  });

  it('keeps the newest TELERACE_KEEP releases, and current, previous and any release a process runs in', async () => {
    const { code, output } = await release(['deploy', 'HEAD'], { TELERACE_KEEP: '1' });
    expect(code, output).toBe(0);
    const newest = await linked('current');
    // `first` is where the probe (a server started before the switches) still runs.
    expect(await releases()).toEqual([first, second, newest].sort());
    expect(await linked('previous')).toBe(second);
  });
});
