/**
 * Test support: the machine's own systemd, to run the units of deploy/systemd the way a server
 * runs them. Where systemd is not PID 1 (a container, CI), `systemctl` and `systemd-run` have no
 * manager to talk to; a *user* manager (`systemd --user`) can still be started by hand. It applies
 * the same execution settings as the system manager (RestrictAddressFamilies= as a seccomp filter,
 * EnvironmentFile= with systemd's own parser, the restart and start-limit rules, User= — the
 * manager runs as root — and the namespaces of ProtectSystem= and friends).
 *
 * It refuses to start unless /run/systemd/system exists ("booted with systemd"): that folder is
 * made on a tmpfs over /run/systemd in a mount namespace of the manager's own, so nothing else on
 * the machine (pg_ctlcluster, say, which looks for it to redirect to systemctl) sees it. The
 * "inaccessible" nodes the system manager would have put there are made too: ProtectHome= and
 * ProtectKernelTunables= mount them over what they hide. Needs root (mount namespaces; CI runs as
 * root) and util-linux's unshare.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, vi } from 'vitest';

const run = promisify(execFile);

const SYSTEMD = '/lib/systemd/systemd';
const START_TIMEOUT_MS = 10_000;

/** The environment the manager, hence every unit, starts from: nothing of the test's own. */
const MANAGER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Why a user manager cannot run here, or null (the deploy tests skip with this reason). */
export function systemdMissing(): string | null {
  if (!existsSync(SYSTEMD) || !existsSync('/usr/bin/systemctl')) return 'systemd is not installed';
  if (!existsSync('/usr/bin/unshare')) return 'util-linux unshare is not installed';
  return null;
}

const SETUP = `set -e
mount -t tmpfs -o mode=0755 tmpfs /run/systemd
mkdir /run/systemd/system /run/systemd/inaccessible
cd /run/systemd/inaccessible
mkdir -m 0000 dir
install -m 0000 /dev/null reg
mkfifo -m 0000 fifo
mknod -m 0000 chr c 0 0
mknod -m 0000 blk b 0 0
cd /
exec ${SYSTEMD} --user`;

export interface UnitState {
  ActiveState: string;
  SubState: string;
  Result: string;
  NRestarts: number;
  ExecMainStatus: number;
}

export interface UserManager {
  /** The folder whose `systemd/user/` holds the units under test. */
  readonly runtimeDir: string;
  /** Writes a unit (or a drop-in: `name.service.d/x.conf`) and reloads the manager. */
  install(files: Record<string, string>): Promise<void>;
  systemctl(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }>;
  state(unit: string): Promise<UnitState>;
  /** Polls `state` until `done` holds, or throws with the last state after `timeoutMs`. */
  waitFor(unit: string, done: (state: UnitState) => boolean, timeoutMs: number): Promise<UnitState>;
  stop(): Promise<void>;
}

export async function startUserManager(): Promise<UserManager> {
  if (process.getuid?.() !== 0)
    throw new Error('a systemd user manager is started as root only: run the tests as root');
  const runtimeDir = await mkdtemp(join(tmpdir(), 'telerace-systemd-'));
  const unitDir = join(runtimeDir, 'systemd', 'user');
  await mkdir(unitDir, { recursive: true });
  const env = { PATH: MANAGER_PATH, LANG: 'C.UTF-8', XDG_RUNTIME_DIR: runtimeDir };
  let output = '';
  const manager: ChildProcess = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', SETUP], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [manager.stdout, manager.stderr]) stream?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => manager.once('exit', () => resolve()));

  const systemctl = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run('systemctl', ['--user', ...args], { env });
      return { stdout, stderr, code: 0 };
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; code?: number };
      return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? 1 };
    }
  };
  const stop = async () => {
    if (manager.exitCode === null && manager.signalCode === null) {
      // SIGTERM: the manager stops its units, then exits.
      manager.kill('SIGTERM');
      const killed = setTimeout(() => manager.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    }
    await rm(runtimeDir, { recursive: true, force: true });
  };

  // Up once it says running (or degraded); a manager that exited will not be.
  const up = await vi
    .waitFor(
      async () => {
        if (manager.exitCode !== null) return false;
        const { stdout } = await systemctl('show', '--property=SystemState', '--value');
        expect(['running', 'degraded']).toContain(stdout.trim());
        return true;
      },
      { timeout: START_TIMEOUT_MS, interval: 50 },
    )
    .catch(() => false);
  if (!up) {
    await stop();
    throw new Error(`the systemd user manager did not start: ${output || '(no output)'}`);
  }

  const state = async (unit: string): Promise<UnitState> => {
    const { stdout } = await systemctl(
      'show',
      unit,
      '--property=ActiveState,SubState,Result,NRestarts,ExecMainStatus',
    );
    const fields = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=', 2)),
    );
    return {
      ActiveState: fields.ActiveState ?? '',
      SubState: fields.SubState ?? '',
      Result: fields.Result ?? '',
      NRestarts: Number(fields.NRestarts),
      ExecMainStatus: Number(fields.ExecMainStatus),
    };
  };

  return {
    runtimeDir,
    async install(files) {
      for (const [name, content] of Object.entries(files)) {
        const path = join(unitDir, name);
        await mkdir(join(path, '..'), { recursive: true });
        await writeFile(path, content);
      }
      const reload = await systemctl('daemon-reload');
      if (reload.code !== 0) throw new Error(`systemctl daemon-reload failed: ${reload.stderr}`);
    },
    systemctl,
    state,
    waitFor(unit, done, timeoutMs) {
      return vi.waitFor(
        async () => {
          const current = await state(unit);
          expect(done(current), `${unit} stayed ${JSON.stringify(current)}`).toBe(true);
          return current;
        },
        { timeout: timeoutMs, interval: 50 },
      );
    },
    stop,
  };
}
