// Debian packages the product and its tests need, and the one place that installs them.
// Uses only Node built-ins: it runs before `npm ci` on a fresh machine.
import { execFileSync, spawnSync } from 'node:child_process';

/** What each use needs. Later features add their packages here (one list, used by every script). */
const VIDEO_PACKAGES = [
  'janus',
  'libjs-janus-gateway',
  'libjs-webrtc-adapter',
  'gstreamer1.0-tools',
  'gstreamer1.0-plugins-base',
  'gstreamer1.0-plugins-good',
  'gstreamer1.0-plugins-ugly',
  // The cars' camera runner (apps/car/src/video/gst-runner.py): GStreamer from Python, so the
  // encoder's bitrate and keyframes can be changed while it plays. Without them the cars fall back
  // to gst-launch-1.0, with no run-time control.
  'python3-gi',
  'gir1.2-gstreamer-1.0',
  'gir1.2-gst-plugins-base-1.0',
];

export const SYSTEM_PACKAGES = {
  // The quick start brings up live video: Janus, the simulated cameras' GStreamer, janus.js.
  run: VIDEO_PACKAGES,
  // redis-server: the scale-out tests run two instances that talk through Redis (.ci/run starts it).
  // systemd: the deploy tests verify the units and run them under a systemd user manager (not PID 1);
  // logrotate: they rotate a running Janus's log with deploy/logrotate/telerace-janus.
  // openssl: the car doctor's test makes a self-signed certificate (apps/car/src/doctor/doctor.test.ts).
  test: [
    'chromium',
    'fonts-dejavu-core',
    'openssl',
    'redis-server',
    'systemd',
    'logrotate',
    ...VIDEO_PACKAGES,
  ],
  // `npm run check:nginx` (.ci/run runs it): the shipped nginx in front of a server, over TLS.
  nginx: ['nginx', 'openssl'],
};

function isInstalled(pkg) {
  // dpkg-query's own format syntax, not a JavaScript template.
  const format = '-f=$' + '{Status}';
  const r = spawnSync('dpkg-query', ['-W', format, pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function hasDpkg() {
  return spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs the missing packages when running as root; otherwise prints the exact command and
 * exits, so nobody has to guess what is missing.
 */
export function ensureSystemPackages(use) {
  const wanted = SYSTEM_PACKAGES[use] ?? [];
  if (wanted.length === 0) return;
  if (!hasDpkg()) {
    console.warn(`[setup] not a Debian system: make sure these are installed: ${wanted.join(' ')}`);
    return;
  }
  const missing = wanted.filter((p) => !isInstalled(p));
  if (missing.length === 0) return;
  const command = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    if (use === 'run') {
      // The site runs without them (no live video); say exactly what brings video.
      console.warn(
        `[setup] missing system packages (live video stays off without them): ${missing.join(' ')}\n[setup] run as root:  ${command}`,
      );
      return;
    }
    console.error(`[setup] missing system packages: ${missing.join(' ')}\n[setup] run as root:  ${command}`);
    process.exit(1);
  }
  console.info(`[setup] installing ${missing.join(' ')} …`);
  execFileSync('sh', ['-c', command], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}
