/**
 * `npm run car:pack`: the car agent as an npm package of its own, `telerace-car-<version>.tgz` in
 * apps/car/dist (or `--destination DIR`), which a car's Pi installs without this repository
 * (docs/car.md "Install on Raspberry Pi OS"). In it: the bundle (bundle.mjs: no dependencies to
 * install, nothing to compile) as the `telerace-car` program with its camera runner beside it
 * (gst-runner.py, run by Debian's Python), a package.json with the project's engines.node, the
 * systemd unit, a README and the licences of the packages the bundle inlines.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleAgent } from './bundle.mjs';

const CAR_DIR = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(CAR_DIR, '..', '..');
const UNIT = 'telerace-car.service';

/** Licence texts of packages published without one, from their repositories. */
const LICENCES_DIR = fileURLToPath(new URL('./licences', import.meta.url));

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Each inlined package's name, version, licence and licence text. */
function notices(packageDirs) {
  const sections = packageDirs.map((dir) => {
    const { name, version, license } = readJson(join(dir, 'package.json'));
    // Spelled every way packages spell it (werift's dependencies include `license`); a package
    // published without one (werift) has its repository's text in scripts/licences/.
    const own = readdirSync(dir).find((candidate) => /^licen[cs]e(\.(md|txt))?$/i.test(candidate));
    const file = own ? join(dir, own) : join(LICENCES_DIR, `${name.replace('/', '__')}.LICENSE`);
    if (!existsSync(file)) throw new Error(`${name}: no licence file to ship with the bundle`);
    return `## ${name} ${version} (${license})\n\n${readFileSync(file, 'utf8').trim()}\n`;
  });
  return `# Third-party software in main.js\n\n${sections.join('\n')}`;
}

const { values } = parseArgs({ options: { destination: { type: 'string' } } });
const destination = values.destination ? resolve(values.destination) : join(CAR_DIR, 'dist');
const car = readJson(join(CAR_DIR, 'package.json'));
const root = readJson(join(ROOT, 'package.json'));

const stage = mkdtempSync(join(tmpdir(), 'telerace-car-pack-'));
try {
  const inlined = await bundleAgent(join(stage, 'main.js'));
  // The version the agent reports in its hello is the package's: one number for the operator.
  const reported = execFileSync(process.execPath, [join(stage, 'main.js'), '--version'], {
    encoding: 'utf8',
  }).trim();
  if (reported !== car.version)
    throw new Error(`apps/car/package.json is ${car.version} but the agent says ${reported} (src/cli.ts)`);
  const manifest = {
    name: 'telerace-car',
    version: car.version,
    description: car.description,
    license: root.license,
    // Installed from its tarball, never published to a registry.
    private: true,
    type: 'module',
    bin: { 'telerace-car': 'main.js' },
    engines: root.engines,
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(CAR_DIR, 'artifact', 'README.md'), join(stage, 'README.md'));
  copyFileSync(join(ROOT, 'deploy', 'systemd', UNIT), join(stage, UNIT));
  writeFileSync(join(stage, 'THIRD-PARTY-NOTICES.md'), notices(inlined));

  mkdirSync(destination, { recursive: true });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination, stage], {
      cwd: stage,
      encoding: 'utf8',
    }),
  );
  const kB = (bytes) => `${Math.round(bytes / 1024)} kB`;
  console.info(
    `${join(destination, packed.filename)}: ${kB(packed.size)}, ${kB(packed.unpackedSize)} installed, ${packed.files.length} files`,
  );
} finally {
  rmSync(stage, { recursive: true, force: true });
}
